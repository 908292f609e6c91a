#!/usr/bin/env bash
# Triton's side of an A/B comparison of benchmark rows (GPU machine only):
# compiles the rows that bench/gpu/ab_cubin.py knows with Triton 3.6 into
# DIR as CASE.triton.{ttgir,ptx,cubin,json}, disassembles every cubin in DIR
# (Tessera's CASE.tessera.cubin too) to CASE.WHO.sass, then times each pair.
#
#   bench/gpu/inspect_rows.sh DIR [CASE...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
d=$1; shift
cases=("$@"); [ ${#cases[@]} -gt 0 ] || cases=(vadd smax256 smax1024 smax4096h ln1024h drop4096)
mkdir -p "$d"
tri() { tag=$1; shift; INSPECT_TAG=$tag.triton python3 "$here/inspect_triton.py" "$d" "$@"; }
for c in "${cases[@]}"; do
  case $c in
    vadd) tri vadd vector_add '*fp32:16,*fp32:16,*fp32:16,i32:16' 4 BLOCK=1024 ;;
    smax256) tri smax256 softmax_row '*fp32:16,*fp32:16,i32:16,i32:16,i32:16' 4 BLOCK=256 ;;
    smax1024) tri smax1024 softmax_row '*fp32:16,*fp32:16,i32:16,i32:16,i32:16' 4 BLOCK=1024 ;;
    online4096) tri online4096 softmax_online '*fp32:16,*fp32:16,i32:16,i32:16,i32:16' 8 BLOCK=4096 ;;
    smax4096h) tri smax4096h softmax_row '*fp16:16,*fp16:16,i32:16,i32:16,i32:16' 8 BLOCK=4096 ;;
    ln1024h) tri ln1024h layernorm_fwd '*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32' 4 BLOCK=1024 ;;
    drop4096) tri drop4096 add_layernorm_dropout \
      '*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,fp32,fp32,i32' 8 BLOCK=4096 ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
done
for f in "$d"/*.cubin; do cuobjdump -sass "$f" > "${f%.cubin}.sass" 2>&1 || true; done
python3 "$here/ab_cubin.py" "$d" "${cases[@]}"
