#!/usr/bin/env bash
# Runs Tessera's whole test suite: unit tests, lit (FileCheck) tests,
# end-to-end kernels on the interpreter, diagnostics, CLI checks, and a
# one-minute fuzzing run of the frontend + interpreter. Needs scripts/setup.sh
# to have run once. The output ends with ctest's summary line.
#
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

ninja -C build -j"$jobs" >/dev/null

if [ -x tests/fuzz/run.sh ] && command -v clang++-14 >/dev/null 2>&1; then
  bash tests/fuzz/run.sh "${TESSERA_FUZZ_SECONDS:-60}"
fi

ctest --test-dir build -j"$jobs" --output-on-failure --timeout 300
