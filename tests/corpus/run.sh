#!/usr/bin/env bash
# Compiles every kernel of manifest.tsv with the tessera CLI and reports how
# many compile unchanged.
#
#   bash tests/corpus/run.sh TESSERA_BINARY [--emit ttir|ttgir|ptx|cubin] [--arch sm_90a,sm_80]
#
# Default: --emit ttir and no --arch (the tool's default target).  With a
# comma-separated --arch list every kernel is compiled once per architecture.
# Prints one line per failure (with the first lines of the error) and ends
# with `corpus: N/M compiled (X%) for EMIT ARCH`.  Exits 0 when at least 95%
# compile, else 1 (2 for a usage error).
set -uo pipefail

usage() { echo "usage: bash $0 TESSERA_BINARY [--emit ttir|ttgir|ptx|cubin] [--arch ARCH[,ARCH...]]" >&2; exit 2; }

[ $# -ge 1 ] || usage
tessera=$1; shift
emit=ttir
archs=""
while [ $# -gt 0 ]; do
  case $1 in
    --emit) [ $# -ge 2 ] || usage; emit=$2; shift 2 ;;
    --emit=*) emit=${1#--emit=}; shift ;;
    --arch) [ $# -ge 2 ] || usage; archs=$2; shift 2 ;;
    --arch=*) archs=${1#--arch=}; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done

# Resolve the binary before changing directory (it may be given relative).
case $tessera in
  */*) tessera=$(cd "$(dirname "$tessera")" && pwd)/$(basename "$tessera") ;;
  *) tessera=$(command -v "$tessera" || echo "$tessera") ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here" || exit 2
manifest=manifest.tsv
[ -f "$manifest" ] || { echo "no $manifest in $here" >&2; exit 2; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The binary may be replaced by a rebuild while we run: wait a little for it.
wait_for_binary() {
  local tries=0
  while [ ! -x "$tessera" ] && [ $tries -lt 60 ]; do sleep 1; tries=$((tries + 1)); done
  [ -x "$tessera" ]
}

IFS=',' read -r -a arch_list <<< "${archs:-}"
[ ${#arch_list[@]} -gt 0 ] || arch_list=("")

total=0 passed=0
while IFS=$'\t' read -r file kernel sig defines; do
  case $file in ''|'#'*) continue ;; esac
  for arch in "${arch_list[@]}"; do
    total=$((total + 1))
    out=/dev/null
    [ "$emit" = cubin ] && out=$tmp/kernel.cubin
    args=(compile "$file" --kernel "$kernel" --signature "$sig")
    # shellcheck disable=SC2206
    [ -n "$defines" ] && args+=($defines)
    args+=(--emit "$emit" -o "$out")
    [ -n "$arch" ] && args+=(--arch "$arch")
    wait_for_binary || { echo "tessera binary $tessera is missing" >&2; exit 2; }
    if "$tessera" "${args[@]}" >"$tmp/stdout" 2>"$tmp/err"; then
      passed=$((passed + 1))
    else
      rc=$?
      echo "FAIL ${arch:+[$arch] }$file:$kernel (exit $rc)"
      { cat "$tmp/err"; cat "$tmp/stdout"; } | grep -v '^[[:space:]]*$' | head -n 4 | sed 's/^/    /'
    fi
  done
done < "$manifest"

arch_label=${archs:-default}
if [ "$total" -eq 0 ]; then
  echo "corpus: 0/0 compiled (0%) for $emit $arch_label"; exit 1
fi
pct=$(awk -v p="$passed" -v t="$total" 'BEGIN { printf "%.1f", 100 * p / t }')
echo "corpus: $passed/$total compiled ($pct%) for $emit $arch_label"
awk -v p="$passed" -v t="$total" 'BEGIN { exit !(p * 100 >= 95 * t) }'
