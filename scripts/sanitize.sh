#!/usr/bin/env bash
# Tessera under the compilers' sanitizers, on this machine (no GPU needed):
#
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)
#         of everything ctest runs -- unit tests of every layer, the
#         end-to-end and error tests on the interpreter, lit, the CLI
#         scripts -- and the whole ctest suite in it. Any report fails the
#         test that made it (UBSan does not recover; LeakSanitizer is on).
#   tsan  ThreadSanitizer build (build-tsan/) of the tests that run threads:
#         the thread pool, the disk cache's concurrent publishers, the API's
#         tests (autotuning, launches) and interpreter launches whose
#         programs run on several threads (atomics, reductions, models).
#
#   bash scripts/sanitize.sh [asan|tsan|all]      (default: all)
#
# Environment: TESSERA_SANITIZE_JOBS=N (ninja and ctest -j, default nproc).
# Output: a few lines per phase and last "sanitize: ..." per tool; full
# logs in build-asan/sanitize.log and build-tsan/sanitize.log. Exit status
# 0 only when every test passed with no report.
set -uo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
jobs=${TESSERA_SANITIZE_JOBS:-$(nproc)}
status=0
summary=()

# configure DIR FLAGS: a build of the library, tests and tools with FLAGS.
configure() {
  local dir=$1 flags=$2
  [ -f "$dir/build.ninja" ] && return 0
  mkdir -p "$dir"
  cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_PRIVATE_LIBSTDCXX=OFF \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    -DCMAKE_SHARED_LINKER_FLAGS="$flags" >"$dir/configure.log" 2>&1 ||
    { tail -20 "$dir/configure.log"; rm -f "$dir/build.ninja"; return 1; }
}

run_asan() {
  local dir=build-asan start=$SECONDS
  echo "== asan+ubsan: building $dir"
  configure $dir "-fsanitize=address,undefined -fno-sanitize-recover=undefined" &&
    ninja -C $dir -j"$jobs" >$dir/build.log 2>&1 ||
    { tail -20 $dir/build.log; summary+=("asan+ubsan: the build failed"); status=1; return; }
  echo "== asan+ubsan: ctest ($((SECONDS - start)) s so far)"
  local rc=0
  LSAN_OPTIONS=suppressions=$PWD/scripts/lsan.supp \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir $dir -j"$jobs" --timeout 900 --output-on-failure >$dir/sanitize.log 2>&1 || rc=$?
  grep -E '^[0-9]+% tests passed|\(Failed\)|\(Timeout\)|SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error:' \
    $dir/sanitize.log | head -20
  local reports
  reports=$(grep -cE 'SUMMARY: (Address|Undefined|Leak)Sanitizer|runtime error:' $dir/sanitize.log)
  summary+=("asan+ubsan: $(grep -E '^[0-9]+% tests passed' $dir/sanitize.log) with $reports sanitizer reports ($((SECONDS - start)) s)")
  [ $rc = 0 ] && [ "$reports" = 0 ] || status=1
}

run_tsan() {
  local dir=build-tsan start=$SECONDS
  echo "== tsan: building $dir"
  configure $dir "-fsanitize=thread" &&
    ninja -C $dir -j"$jobs" unit_support unit_runtime unit_api e2e_tests >$dir/build.log 2>&1 ||
    { tail -20 $dir/build.log; summary+=("tsan: the build failed"); status=1; return; }
  echo "== tsan: concurrency tests ($((SECONDS - start)) s so far)"
  : >$dir/sanitize.log
  local rc=0 t
  export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" TESSERA_CACHE_DIR=$PWD/$dir/test-cache
  for t in "unit_support ThreadPool.*" "unit_runtime DiskCache.*:CacheIntegrity.*" "unit_api *" \
           "e2e_tests Atomics.*:Atomics16.*:Reductions.*:Models.*:Warps.*:Basics.*:Control.*"; do
    local bin filter
    read -r bin filter <<<"$t"  # (not `set -- $t`: the shell would expand the filter's *)
    echo "-- $bin $filter" >>$dir/sanitize.log
    TESSERA_NUM_THREADS=4 $dir/tests/$bin --gtest_filter="$filter" >>$dir/sanitize.log 2>&1 || rc=1
  done
  local reports passed failed
  reports=$(grep -c '^WARNING: ThreadSanitizer' $dir/sanitize.log)
  passed=$(grep -c '^\[       OK \]' $dir/sanitize.log)
  failed=$(grep -c '^\[  FAILED  \] [A-Za-z]' $dir/sanitize.log)
  grep -A12 -m3 '^WARNING: ThreadSanitizer' $dir/sanitize.log | head -40
  summary+=("tsan: $passed tests passed, $failed failed, $reports ThreadSanitizer reports ($((SECONDS - start)) s)")
  [ $rc = 0 ] && [ "$reports" = 0 ] || status=1
}

case $which in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
  *) echo "usage: scripts/sanitize.sh [asan|tsan|all]"; exit 2 ;;
esac
printf 'sanitize: %s\n' "${summary[@]}"
exit $status
