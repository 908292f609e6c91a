#!/usr/bin/env bash
# Builds the libFuzzer targets with clang 14 + ASan/UBSan (build-fuzz/) and
# fuzzes for N seconds in all (default 60): two thirds on the frontend, code
# generator, passes and interpreter (fuzz_frontend, from a seed corpus of
# every test kernel, with a dictionary of Triton/Python tokens,
# tests/fuzz/triton.dict), one third on `tessera compile` command lines and
# launch arguments (fuzz_api, from tests/fuzz/regressions-api/). Output is
# a few lines; the full logs are build-fuzz/fuzz_frontend.log and
# fuzz_api.log. A crash, sanitizer report, timeout or OOM is saved as
# tests/fuzz/crashes/<target>-<kind>-<sha1> and the script exits 1 (2: a
# target did not configure or build).
# Each one found becomes, once minimized and fixed, an input in
# tests/fuzz/regressions/ (regressions-api/ for fuzz_api; replayed by
# unit_api's FuzzRegressions tests):
#
#   build-fuzz/tests/fuzz/fuzz_frontend -minimize_crash=1 -runs=20000 \
#       -exact_artifact_path=tests/fuzz/regressions/NAME.py tests/fuzz/crashes/crash-...
#
#   bash tests/fuzz/run.sh [SECONDS]        (TESSERA_FUZZ_JOBS=N for ninja -jN)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=build-fuzz
jobs=${TESSERA_FUZZ_JOBS:-$(nproc)}
cxx=${TESSERA_FUZZ_CXX:-clang++-14}
cc=${TESSERA_FUZZ_CC:-clang-14}

# Exit status 2: the fuzz target could not be configured or built (the
# code does not compile with clang: scripts/test.sh fails on it); 1: a
# finding.
fail() {
  echo "fuzz: $1 (last lines of $2):" >&2
  tail -n 25 "$2" >&2
  exit 2
}

mkdir -p $build
if [ ! -f $build/build.ninja ]; then
  sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  CC=$cc CXX=$cxx cmake -G Ninja -S . -B $build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_FUZZERS=ON \
    -DCMAKE_CXX_FLAGS="$sanitize -fsanitize=fuzzer-no-link" \
    -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
    -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" >$build/configure.log 2>&1 ||
    { rm -f $build/build.ninja; fail "configuring $build with $cxx failed" $build/configure.log; }
fi
ninja -C $build -j"$jobs" fuzz_frontend fuzz_api >$build/build.log 2>&1 ||
  fail "building the fuzz targets failed" $build/build.log

corpus=$build/corpus
mkdir -p "$corpus" tests/fuzz/crashes
find tests examples -name '*.py' -size -16k -not -path 'tests/fuzz/crashes/*' -exec cp {} "$corpus"/ \;
cp lib/frontend/prelude/tl_prelude.py "$corpus"/ 2>/dev/null || true

# fuzz TARGET SECONDS CORPUS... [-- FLAGS]: one libFuzzer run; exit 1 on a finding.
# -close_fd_mask=1: kernels' device_print/static_print go to stdout; libFuzzer
# and the sanitizers report on stderr. -timeout=30: ASan+UBSan make the
# interpreter ~10-100x slower, and legal kernels (device_print of 2^20
# elements) take ~10 s in this build; anything slower is reported.
fuzz() {
  local target=$1 secs=$2 status=0
  shift 2
  local log=$build/$target.log
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:handle_abort=1 \
  UBSAN_OPTIONS=print_stacktrace=1 \
    $build/tests/fuzz/$target "$@" -max_total_time="$secs" -timeout=30 \
    -rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
    -artifact_prefix=tests/fuzz/crashes/"${target#fuzz_}"- >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status); full log: $log" >&2
    # The sanitizer's headline, the first frames in Tessera and the artifact.
    grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error:|ALARM|.*out-of-memory)' "$log" >&2 || true
    grep -m 4 -E '^ +#[0-9]+ .* in tessera::' "$log" | sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in //' | cut -c1-160 >&2 || true
    grep -m 1 -E 'Test unit written to' "$log" >&2 || true
    return 1  # a finding (2 is kept for "does not build")
  fi
  awk -v t="$target" '/^Done [0-9]+ runs/ {runs = $2; secs = $5}
       /^stat::new_units_added:/ {added = $2}
       /^stat::peak_rss_mb:/ {rss = $2}
       END {printf "fuzz: %s ok: %s runs in %ss, %s new corpus units, peak RSS %s MB\n", t, runs, secs, added, rss}' "$log"
}

front=$((seconds * 2 / 3))
echo "fuzz: ${front}s of the frontend + interpreter from $(ls "$corpus" | wc -l) inputs," \
     "$((seconds - front))s of command lines and launch arguments"
found=0
fuzz fuzz_frontend "$front" "$corpus" tests/fuzz/regressions -dict=tests/fuzz/triton.dict -max_len=16384 || found=1
mkdir -p $build/corpus-api
fuzz fuzz_api "$((seconds - front))" $build/corpus-api tests/fuzz/regressions-api -max_len=4096 || found=1
exit $found
