#!/usr/bin/env bash
# Sets a fresh Debian 12 machine up for Tessera, builds it, and runs the main
# job: the fused-softmax example (on the CPU interpreter when there is no GPU).
#
#   bash scripts/setup.sh
#
# Installs with apt (via sudo when not root): a C++20 compiler, CMake, Ninja,
# GoogleTest, LLVM's FileCheck (lit tests), clang's libFuzzer runtime, and
# for the Python package Debian's python3-dev, pybind11-dev, NumPy, pytest and
# matplotlib (no PyPI); then makes `import tessera` work for /usr/bin/python3.
# The CUDA toolkit is optional: it is used when present (CUDA_HOME or
# /usr/local/cuda), and never installed by this script.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PACKAGES=(g++ cmake ninja-build libgtest-dev llvm-14-tools clang-14 libclang-rt-14-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-matplotlib)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

packages_s=$SECONDS

echo "== configuring and building (build/)"
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j"$(nproc)"
build_s=$((SECONDS - packages_s))

# `import tessera` and `python3 -m tessera` for Debian's Python: a .pth file
# in its site directory names python/ (the extension module is found in
# build/python/tessera by python/tessera/_native.py).
PYTHON=/usr/bin/python3
site_dir=$($PYTHON -c 'import site; print(site.getsitepackages()[0])')
$SUDO mkdir -p "$site_dir"
echo "$PWD/python" | $SUDO tee "$site_dir/tessera.pth" >/dev/null
$PYTHON -c 'import tessera; print("== python: import tessera works (" + tessera._C.__file__ + ")")'

echo "== main job: fused softmax from C++"
./build/examples/softmax_example
echo "== phases (scripts/setup.sh, $(nproc) cores)"
printf '  %-28s %5d s\n' "packages" "$packages_s" "configure + build" "$build_s" \
  "main job" $((SECONDS - packages_s - build_s)) "total" "$SECONDS"
