#!/usr/bin/env bash
# Shows that a change leaves the generated PTX byte-identical (issue #26:
# refactors of the GPU passes and the emitter must not change generated
# code). Every kernel specialization the e2e suite launched (the manifest
# ctest records, BUILD/e2e-launches.tsv) plus the library's matmul and
# attention kernels in their benchmark configs (scripts/ptx-identical.specs.tsv)
# goes through `tessera compile --emit ptx` for sm_80 and sm_90a with two
# builds of the CLI, and the two outputs are compared byte for byte.
#
#   scripts/ptx-identical.sh [--base REF | --base-cli PATH] [--cli PATH]
#                            [--expected FILE] [--jobs N] [--out DIR]
#
#   --base REF       build REF's CLI (a git worktree under build-ptx-base/,
#                    reused between runs) and compare against it; default HEAD
#   --base-cli PATH  an already built `tessera` to compare against
#   --cli PATH       the build to check (default: build/tools/tessera)
#   --expected FILE  intended differences, one per line:
#                    KERNEL<TAB>ARCH<TAB>why  (KERNEL and ARCH may be *)
#   --jobs N         compiles at once (default: nproc)
#   --out DIR        where the PTX pairs of differing specializations and
#                    the report go (default: BUILD/ptx-identical)
#
# Prints one line per differing specialization and last
#   PTX: N identical, D different (E intended), F failed to compile, of T
# and exits 0 when every difference is intended and nothing failed in one
# build but not the other. No GPU and no CUDA toolkit are needed (PTX only).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base_ref=HEAD base_cli="" cli=$root/build/tools/tessera expected="" jobs=$(nproc) out=""
while [ $# -gt 0 ]; do
  case $1 in
    --base) base_ref=$2; shift 2 ;;
    --base-cli) base_cli=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    --expected) expected=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "ptx-identical: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] || { echo "ptx-identical: no CLI at $cli (build it: ninja -C build tessera-cli)" >&2; exit 2; }
build=$(cd "$(dirname "$cli")/.." && pwd)
out=${out:-$build/ptx-identical}
manifest=$build/e2e-launches.tsv
[ -s "$manifest" ] || { echo "ptx-identical: no $manifest (run the e2e tests once: ctest -R '^[A-Z]')" >&2; exit 2; }

# The base build: a worktree of REF with its own build directory.
if [ -z "$base_cli" ]; then
  wt=$root/build-ptx-base
  rev=$(git -C "$root" rev-parse --verify "$base_ref^{commit}") || exit 2
  if [ ! -d "$wt/src" ]; then
    git -C "$root" worktree add --detach "$wt/src" "$rev" >/dev/null || exit 2
  else
    git -C "$wt/src" checkout -q --detach "$rev" || exit 2
  fi
  echo "[ptx-identical] building the CLI of $base_ref ($(git -C "$root" rev-parse --short "$rev")) in $wt"
  if [ ! -f "$wt/build/CMakeCache.txt" ]; then
    cmake -S "$wt/src" -B "$wt/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$wt/configure.log" 2>&1 ||
      { tail -20 "$wt/configure.log"; exit 2; }
  fi
  ninja -C "$wt/build" tessera-cli >"$wt/build.log" 2>&1 || { tail -20 "$wt/build.log"; exit 2; }
  base_cli=$wt/build/tools/tessera
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"; mkdir -p "$out/diffs" "$tmp/res"
# Specializations: FILE<TAB>KERNEL<TAB>SIGNATURE<TAB>DEFINES[<TAB>OPTIONS];
# library paths in the specs file are relative to the repository.
{
  sort -u "$manifest" | while IFS=$'\t' read -r file rest; do [ -f "$file" ] && printf '%s\t%s\n' "$file" "$rest"; done
  grep -v '^#' "$root/scripts/ptx-identical.specs.tsv" | grep . | sed "s|^|$root/|"
} >"$tmp/specs.tsv"
count=$(wc -l <"$tmp/specs.tsv")

# One specialization and architecture per call; $tmp/res/N.ARCH holds
#   "same|diff|fail-both|fail-base|fail-new<TAB>KERNEL<TAB>ARCH<TAB>first error line"
worker() {
  local n=$1 arch=$2 file kernel sig defines options
  IFS=$'\t' read -r file kernel sig defines options < <(sed -n "${n}p" "$tmp/specs.tsv")
  local a=$tmp/$n.$arch.base.ptx b=$tmp/$n.$arch.new.ptx ra=0 rb=0 status
  # shellcheck disable=SC2086  # DEFINES and OPTIONS are lists of arguments
  TESSERA_CACHE_DIR=$tmp/cache-base "$base_cli" compile "$file" --kernel "$kernel" --signature "$sig" $defines \
    $options --arch "$arch" --emit ptx -o "$a" 2>"$a.err" >/dev/null || ra=1
  # shellcheck disable=SC2086
  TESSERA_CACHE_DIR=$tmp/cache-new "$cli" compile "$file" --kernel "$kernel" --signature "$sig" $defines \
    $options --arch "$arch" --emit ptx -o "$b" 2>"$b.err" >/dev/null || rb=1
  if [ $ra = 1 ] && [ $rb = 1 ]; then status=fail-both
  elif [ $ra = 1 ]; then status=fail-base
  elif [ $rb = 1 ]; then status=fail-new
  elif cmp -s "$a" "$b"; then status=same
  else
    status=diff
    cp "$a" "$out/diffs/$kernel.$n.$arch.base.ptx"
    cp "$b" "$out/diffs/$kernel.$n.$arch.new.ptx"
  fi
  local why=""
  case $status in fail-*) why=$(cat "$a.err" "$b.err" | grep -m1 .) ;; esac
  printf '%s\t%s\t%s\t%s\t%s\n' "$status" "$kernel" "$arch" "$n" "$why" >"$tmp/res/$n.$arch"
  rm -f "$a" "$b" "$a.err" "$b.err"
}
export -f worker
export tmp out cli base_cli
echo "[ptx-identical] $count specializations x sm_80, sm_90a, $jobs at once"
for n in $(seq 1 "$count"); do printf '%s sm_80\n%s sm_90a\n' "$n" "$n"; done |
  xargs -P "$jobs" -n 2 bash -c 'worker "$0" "$1"'

intended() {  # KERNEL ARCH -> 0 when the expected file lists it
  [ -n "$expected" ] || return 1
  awk -F'\t' -v k="$1" -v a="$2" '!/^#/ && ($1 == k || $1 == "*") && ($2 == a || $2 == "*") { f = 1 } END { exit !f }' \
    "$expected"
}
same=0 diff=0 ok_diff=0 failed=0 bad=0
cat "$tmp"/res/* | sort -t$'\t' -k2,2 -k4,4n >"$out/report.tsv"
while IFS=$'\t' read -r status kernel arch n why; do
  case $status in
    same) same=$((same + 1)) ;;
    fail-both) failed=$((failed + 1)) ;;
    diff)
      diff=$((diff + 1))
      if intended "$kernel" "$arch"; then ok_diff=$((ok_diff + 1)); echo "intended: $kernel ($arch, #$n)"
      else bad=$((bad + 1)); echo "DIFFERENT: $kernel ($arch, #$n): $out/diffs/$kernel.$n.$arch.{base,new}.ptx"; fi ;;
    fail-base|fail-new)
      bad=$((bad + 1)); echo "${status^^}: $kernel ($arch, #$n): $why" ;;
  esac
done <"$out/report.tsv"
echo "PTX: $same identical, $diff different ($ok_diff intended), $failed failed to compile in both, of $((count * 2))"
[ $bad = 0 ]
