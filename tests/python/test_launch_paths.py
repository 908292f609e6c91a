"""Kernels launch through one of two binders: the C++ launcher (the default)
or, with TESSERA_INTERPRET=1 / TRITON_INTERPRET=1 set when the kernel is
defined, the Python one in tessera/jit.py. ctest runs this suite with
TESSERA_INTERPRET=1, a plain `pytest` without it, so each run sees only one
binder. This test runs the launch and binding tests under both, in child
processes, and checks that every test has the same outcome under each."""

import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from _testutil import PYTHON, child_env

# Interpreter tensors and binders (skipped with TESSERA_TEST_ARRAYS=cuda).
pytestmark = pytest.mark.interpreter_only

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ["test_launch.py", "test_binding.py", "test_autotune.py"]


def _outcomes(tmp_path, interpret):
    report = tmp_path / ("interpret.xml" if interpret else "launcher.xml")
    env = child_env()
    for var in ("TESSERA_INTERPRET", "TRITON_INTERPRET"):
        env.pop(var, None)
    if interpret:
        env["TESSERA_INTERPRET"] = "1"
    r = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", str(report)] + FILES,
                       cwd=HERE, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), "pytest exit %d\n%s\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:])
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = "%s::%s" % (case.get("classname"), case.get("name"))
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[name] = kinds[0] if kinds else "passed"
    return outcomes, r.stdout


def test_both_binders_give_the_same_outcomes(tmp_path):
    launcher, out_l = _outcomes(tmp_path, interpret=False)
    interpret, out_i = _outcomes(tmp_path, interpret=True)
    assert len(launcher) > 100 and set(launcher) == set(interpret)
    differ = sorted("%s: C++ launcher %s, Python binder (TESSERA_INTERPRET=1) %s" % (k, launcher[k], interpret[k])
                    for k in launcher if launcher[k] != interpret[k])
    assert differ == [], "\n".join(differ)
