#!/usr/bin/env bash
# Runs Tessera's whole test suite: unit tests, lit (FileCheck) tests,
# end-to-end kernels on the interpreter, diagnostics, CLI checks, and a
# one-minute fuzzing run of the frontend + interpreter. Needs scripts/setup.sh
# to have run once. The output ends with ctest's summary, the slowest tests
# and how long each phase took. No test may run longer than 120 s (ctest's
# timeout here): heavy checks belong in the device run (tests/gpu/run).
#
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
phases=()
phase_start=$SECONDS
end_phase() {  # NAME
  phases+=("$(printf '%-28s %5d s' "$1" $((SECONDS - phase_start)))")
  phase_start=$SECONDS
}
report_phases() {
  echo "== phases (scripts/test.sh, $jobs cores)"
  printf '  %s\n' "${phases[@]}"
  printf '  %-28s %5d s\n' "total" "$SECONDS"
}

ninja -C build -j"$jobs" >/dev/null
end_phase "build (incremental)"

# A minute of fuzzing. A new finding is printed and saved under
# tests/fuzz/crashes/ but does not fail the run (set TESSERA_FUZZ_STRICT=1 to
# make it fatal): random exploration must not make CI flaky. Every finding,
# once fixed, joins tests/fuzz/regressions/, which ctest replays below.
# A fuzz target that does not build is a compile error with clang: fatal.
if command -v clang++-14 >/dev/null 2>&1; then
  status=0
  bash tests/fuzz/run.sh "${TESSERA_FUZZ_SECONDS:-60}" || status=$?
  if [ "$status" = 2 ]; then
    echo "fuzz: the fuzz target does not build with clang (see above)"
    exit 1
  elif [ "$status" != 0 ]; then
    echo "fuzz: NEW FINDING (see above); minimize it into tests/fuzz/regressions/ and fix it"
    if [ "${TESSERA_FUZZ_STRICT:-0}" = 1 ]; then exit 1; fi
  fi
  end_phase "fuzzing (build + run)"
fi

status=0
ctest --test-dir build -j"$jobs" --output-on-failure --timeout 120 | tee build/ctest.log || status=$?
end_phase "ctest"
echo "== slowest tests"
grep -E 'Test +#[0-9]+: .* sec$' build/ctest.log | sed -E 's/^.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' |
  sort -rn | awk 'NR <= 5 { printf "  %8.2f s  %s\n", $1, $2 }'  # (head would cut sort off: SIGPIPE under pipefail)
report_phases
exit "$status"
