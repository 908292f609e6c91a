#!/usr/bin/env python3
"""Reads the results of tests/gpu/run: gtest XML files and console logs.

tests/gpu/run runs each gtest suite in its own process (a GPU fault poisons
only its process's CUDA context). This script turns those runs into
per-test results, even when a process died: a process killed by a fault or
by its time limit leaves no XML, so its console log says which tests
finished and which one was running.

  gtest_report.py plan   RESULTS_DIR        -> prints the tests to rerun alone
  gtest_report.py report RESULTS_DIR DEVICE MARKDOWN
                                        -> prints the table, writes it as markdown too

RESULTS_DIR holds, per job TAG: TAG.tests (expected test names, one a
line), TAG.log (console), TAG.rc (exit status), TAG.xml (gtest XML, when
written). Reruns of single tests are jobs tagged "rerun.<Suite.Test>".
Tests to rerun alone: those a process never reached or was running when it
died, and the failures of a process whose CUDA context was poisoned by a
fault (every later launch in that process fails with the same sticky error,
so only a test run alone tells what is really broken).
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

# Faults after which the CUDA context is unusable ("sticky" errors).
STICKY = re.compile(r"ILLEGAL_ADDRESS|ILLEGAL_INSTRUCTION|MISALIGNED_ADDRESS|LAUNCH_FAILED|"
                    r"CUDA_ERROR_ASSERT|HARDWARE_STACK_ERROR|INVALID_PC|unspecified launch failure|"
                    r"an illegal memory access")
MAX_RERUNS = 80
GLOBAL = "(outside any test)"


class Result:
    def __init__(self, status, message="", note=""):
        self.status = status  # passed | failed | skipped | crashed | notrun
        self.message = message
        self.note = note


def first_failure_line(text):
    """'Test.cpp:36: Expected equality of ...' from a gtest failure message."""
    # GTEST_FAIL() puts a bare "Failed" line before the message.
    lines = [l.strip() for l in text.strip().splitlines() if l.strip() and l.strip() != "Failed"]
    if not lines:
        return "(no message)"
    head = lines[0]
    m = re.match(r"^(.*?):(\d+)$", head)
    if m and len(lines) > 1:
        head = "%s:%s: %s" % (os.path.basename(m.group(1)), m.group(2), lines[1])
    elif head == "unknown file" and len(lines) > 1:  # an exception escaped the test
        head = lines[1]
    return head[:240]


def parse_xml(path):
    results = {}
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        # A failure outside any test (global set-up) has no class or name.
        name = "%s.%s" % (case.get("classname"), case.get("name")) if case.get("classname") else GLOBAL
        failures = case.findall("failure") + case.findall("error")
        skipped = case.find("skipped")
        if failures:
            msg = failures[0].get("message") or failures[0].text or ""
            results[name] = Result("failed", first_failure_line(msg))
        elif skipped is not None or case.get("result") == "skipped":
            text = (skipped.get("message") if skipped is not None else "") or ""
            # gtest's message is "file:line\n<reason>": keep the reason.
            reason = [l for l in text.splitlines()[1:] if l.strip()]
            results[name] = Result("skipped", reason[0].strip() if reason else "")
        elif case.get("status") == "notrun":
            results[name] = Result("skipped", "disabled")
        else:
            results[name] = Result("passed")
    return results


def parse_log(path, expected, rc):
    """Per-test results from a console log of a process that left no XML."""
    results = {}
    running = None
    failure = []  # the running test's first failure: "file:line: Failure" and what follows
    text = open(path, errors="replace").read() if os.path.exists(path) else ""
    for line in text.splitlines():
        m = re.match(r"^\[ RUN      \] (\S+)", line)
        if m:
            running, failure = m.group(1), []
            continue
        m = re.match(r"^\[ +(OK|FAILED|SKIPPED) +\] (\S+) \(", line)
        if m:
            status = {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}[m.group(1)]
            message = first_failure_line("\n".join(failure)) if failure else "see the log"
            results[m.group(2)] = Result(status, message if status == "failed" else "")
            running = None
            continue
        if running and (failure or line.endswith(": Failure")):
            if len(failure) < 3:
                failure.append(line[:-len(" Failure")].rstrip(":") if not failure else line)
    why = describe_exit(rc)
    if running:
        results[running] = Result("crashed", "%s while this test ran" % why)
    for name in expected:
        if name not in results:
            results[name] = Result("notrun", "not reached: the process %s" % why)
    return results


def describe_exit(rc):
    if rc in (124, 137):
        return "hit its time limit"
    if rc > 128:
        return "was killed by signal %d" % (rc - 128)
    return "exited with status %d" % rc


def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def load_job(results_dir, tag):
    expected = [l for l in read(os.path.join(results_dir, tag + ".tests")).splitlines() if l]
    rc = int(read(os.path.join(results_dir, tag + ".rc"), "-1") or -1)
    xml = os.path.join(results_dir, tag + ".xml")
    log = os.path.join(results_dir, tag + ".log")
    results = None
    if os.path.exists(xml):
        try:
            results = parse_xml(xml)
        except ET.ParseError:
            results = None
    if results is None:
        results = parse_log(log, expected, rc)
    problem = ""
    if rc != 0 and not any(r.status in ("failed", "crashed", "notrun") for r in results.values()):
        # The process failed outside any test (e.g. global set-up: no GPU).
        lines = open(log, errors="replace").read().splitlines() if os.path.exists(log) else []
        detail = next((lines[i + 2] for i, l in enumerate(lines)
                       if l.endswith(": Failure") and i + 2 < len(lines)), "")
        problem = "%s%s" % (describe_exit(rc), (": " + detail.strip()[:240]) if detail else "")
    return expected, results, problem


def jobs(results_dir):
    tags = [os.path.basename(p)[:-len(".tests")] for p in glob.glob(os.path.join(results_dir, "*.tests"))]
    return sorted(t for t in tags if not t.startswith("rerun."))


def plan(results_dir):
    reruns = []
    for tag in jobs(results_dir):
        _, results, _ = load_job(results_dir, tag)
        poisoned = any(r.status == "failed" and STICKY.search(r.message) for r in results.values())
        if not poisoned:
            # The XML keeps only the first failure line; the log has the rest.
            log = read(os.path.join(results_dir, tag + ".log"))
            poisoned = any(r.status == "failed" for r in results.values()) and bool(STICKY.search(log))
        for name, r in sorted(results.items()):
            if r.status in ("crashed", "notrun") or (poisoned and r.status == "failed"):
                reruns.append(name)
    for name in reruns[:MAX_RERUNS]:
        print(name)
    if len(reruns) > MAX_RERUNS:
        sys.stderr.write("%d more tests to rerun alone; only the first %d are (they count as failed)\n"
                         % (len(reruns) - MAX_RERUNS, MAX_RERUNS))


def suite_of(name, tag):
    """'e2e Shapes' (jobs are tagged e2e.<Suite>), 'unit_runtime Driver'."""
    if "." in tag:
        return tag.replace(".", " ", 1)
    return "%s %s" % (tag, name.split(".")[0] if name != GLOBAL else "")


def report(results_dir, device, markdown):
    rows = {}       # suite -> [passed, failed, skipped]
    failures = []   # (test, line)
    notes = []
    skips = []
    totals = {"e2e": [0, 0, 0], "unit": [0, 0, 0]}
    for tag in jobs(results_dir):
        expected, results, problem = load_job(results_dir, tag)
        kind = "e2e" if tag.startswith("e2e") else "unit"
        for name in sorted(set(expected) | set(results)):
            r = results.get(name, Result("notrun", "missing from the results"))
            rerun_tag = "rerun." + name.replace("/", "%")  # as tests/gpu/run names it
            if os.path.exists(os.path.join(results_dir, rerun_tag + ".tests")):
                _, alone, alone_problem = load_job(results_dir, rerun_tag)
                a = alone.get(name, Result("notrun", alone_problem or "no result when run alone"))
                if a.status != r.status:
                    notes.append("`%s`: %s in the suite's process (%s), %s when run alone"
                                 % (name, r.status, r.message[:120], a.status))
                r = a
            suite = suite_of(name, tag)
            row = rows.setdefault(suite, [0, 0, 0])
            idx = {"passed": 0, "skipped": 2}.get(r.status, 1)
            row[idx] += 1
            totals[kind][idx] += 1
            if name == GLOBAL:
                name = "%s %s" % (tag, GLOBAL)
            if idx == 1:
                failures.append((name, "%s%s" % ("" if r.status == "failed" else r.status + ": ", r.message)))
            elif idx == 2:
                skips.append((name, r.message))
        if problem:
            rows.setdefault(suite_of(GLOBAL, tag).strip(), [0, 0, 0])[1] += 1
            totals[kind][1] += 1
            failures.append(("%s %s" % (tag, GLOBAL), problem))

    width = max([len(s) for s in rows] + [10])
    out = []
    out.append("%-*s %7s %7s %7s" % (width, "suite", "passed", "failed", "skipped"))
    for suite in sorted(rows):
        p, f, s = rows[suite]
        out.append("%-*s %7d %7d %7d%s" % (width, suite, p, f, s, "   <--" if f else ""))
    if failures:
        out.append("")
        out.append("failing tests (first failure line):")
        for name, line in failures:
            out.append("  %s: %s" % (name, line))
    if notes:
        out.append("")
        out.append("rerun alone after a crash or a poisoned CUDA context:")
        for n in notes[:15]:
            out.append("  " + n.replace("`", ""))
        if len(notes) > 15:
            out.append("  ... and %d more (gpu-e2e.md)" % (len(notes) - 15))
    u = totals["unit"]
    if sum(u):
        out.append("GPU unit: %d passed, %d failed, %d skipped" % tuple(u))
    e = totals["e2e"]
    out.append("GPU e2e: %d passed, %d failed, %d skipped (%s)" % (e[0], e[1], e[2], device))
    print("\n".join(out))

    md = ["# GPU tests: %s" % device, ""]
    md.append("| suite | passed | failed | skipped |")
    md.append("| --- | ---: | ---: | ---: |")
    for suite in sorted(rows):
        p, f, s = rows[suite]
        md.append("| %s | %d | %s | %d |" % (suite, p, ("**%d**" % f) if f else "0", s))
    md.append("| **e2e total** | %d | %d | %d |" % tuple(e))
    if sum(u):
        md.append("| **unit total** | %d | %d | %d |" % tuple(u))
    md.append("")
    if failures:
        md.append("## Failing tests")
        md.append("")
        for name, line in failures:
            md.append("- `%s`: %s" % (name, line.replace("|", "\\|")))
        md.append("")
    if notes:
        md.append("## Rerun alone")
        md.append("")
        md.extend("- " + n for n in notes)
        md.append("")
    if skips:
        md.append("## Skipped")
        md.append("")
        for name, why in skips:
            md.append("- `%s`%s" % (name, (": " + why) if why else ""))
        md.append("")
    md.append("GPU e2e: %d passed, %d failed, %d skipped (%s)" % (e[0], e[1], e[2], device))
    with open(markdown, "w") as f:
        f.write("\n".join(md) + "\n")
    return 1 if e[1] or u[1] else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "plan":
        plan(sys.argv[2])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "report":
        return report(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
