#!/usr/bin/env bash
# Builds the libFuzzer target with clang (build-fuzz/) and fuzzes the
# frontend + interpreter for N seconds (default 60) from a seed corpus of
# every test kernel. Crashes are saved as tests/fuzz/crashes/crash-*; each one
# found becomes a regression input in tests/fuzz/regressions/ (replayed by
# ctest through unit tests). Exits non-zero when the fuzzer finds a bug.
#
#   bash tests/fuzz/run.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=build-fuzz
if [ ! -f $build/build.ninja ]; then
  CC=clang-14 CXX=clang++-14 cmake -G Ninja -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
ninja -C $build -j"$(nproc)" fuzz_frontend >/dev/null
corpus=$build/corpus
mkdir -p "$corpus" tests/fuzz/crashes
find tests examples -name '*.py' -size -16k -exec cp {} "$corpus"/ \;
echo "== fuzzing the frontend + interpreter for ${seconds}s"
ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
  $build/tests/fuzz/fuzz_frontend "$corpus" tests/fuzz/regressions \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -artifact_prefix=tests/fuzz/crashes/ -print_final_stats=1 2>&1 | tail -n 12
