#!/usr/bin/env bash
# Builds shim.cpp against a Tessera build and runs compare.py: every corpus
# entry launched with Triton and with Tessera on the same inputs, results
# compared. Needs PyTorch, Triton and a CUDA GPU (exit 77 without them).
#
#   run.sh BUILD_DIR [compare.py options: --only SUBSTRING --log FILE]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd); shift
root=$(cd "$here/../../.." && pwd)
python3 -c 'import torch, triton, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
  { echo "no PyTorch with CUDA and Triton here: skipped"; exit 77; }
lib=$(find "$build" -maxdepth 2 -name 'libtessera.so' | head -1)
[ -n "$lib" ] || { echo "no libtessera.so under $build"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
g++ -std=c++17 -O1 -shared -fPIC "$here/shim.cpp" -I"$root/include" -L"$(dirname "$lib")" -ltessera \
  -Wl,-rpath,"$(dirname "$lib")" -o "$tmp/libshim.so" || { echo "the shim did not build"; exit 1; }
python3 "$here/compare.py" "$tmp/libshim.so" "$@"
