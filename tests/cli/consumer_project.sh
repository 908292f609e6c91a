#!/usr/bin/env bash
# Tessera as a dependency of another project (issue #26): install this build
# into a scratch prefix and check what it holds (the user headers only, a
# versioned SONAME, the pkg-config file, the license, exported symbols
# within the public namespace), then build and run tests/cli/consumer
# against it through find_package(Tessera) and through pkg-config, and
# configure it through add_subdirectory without GTest (no test or benchmark
# targets). TESSERA_CONSUMER_SUBDIR_BUILD=1 also builds and runs that one
# (a whole Tessera build: the device run does it).
#
#   consumer_project.sh TESSERA TESSERA_OPT SOURCE_DIR
set -uo pipefail
tessera=$1
src=$3
build=$(cd "$(dirname "$tessera")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
p=$tmp/prefix
lib=$p/lib
[ -d "$lib" ] || lib=$(dirname "$(find "$p" -name 'libtessera.so*' | head -1)")

# What the install holds.
headers=$(cd "$p/include/tessera" && ls | sort | tr '\n' ' ')
[ "$headers" = "Error.h Export.h aot.h dlpack.h kernels.h tessera.h testing.h " ] ||
  fail "installed headers: $headers"
soname=$(readelf -d "$lib/libtessera.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname =~ ^libtessera\.so\.[0-9]+\.[0-9]+$ ]] || fail "SONAME '$soname' (want libtessera.so.MAJOR.MINOR)"
[ -f "$lib/pkgconfig/tessera.pc" ] || fail "no pkg-config file"
[ -f "$p/share/doc/tessera/LICENSE" ] || fail "no LICENSE"
exported=$(nm -D --defined-only -C "$lib/libtessera.so" | cut -d' ' -f3-)
outside=$(grep -v -E '^(typeinfo for |typeinfo name for |vtable for )?tessera::' <<<"$exported" | head -5)
[ -z "$outside" ] || fail "symbols outside tessera:: exported: $outside"
internal=$(grep -E 'tessera::(ir|gpu|ptx|frontend|py|host|interp|transforms|runtime)::[A-Za-z_]+(::|\()' <<<"$exported" |
  grep -v -E '^tessera::(detail|kernels|testing|aot)::' | head -5)
[ -z "$internal" ] || fail "internal symbols exported: $internal"
echo "installed: $headers; SONAME $soname; $(wc -l <<<"$exported") exported symbols"

# find_package(Tessera).
cmake -S "$src/tests/cli/consumer" -B "$tmp/fp" -G Ninja -DCMAKE_PREFIX_PATH="$p" >"$tmp/fp.log" 2>&1 ||
  { cat "$tmp/fp.log"; fail "find_package: configure"; }
cmake --build "$tmp/fp" >>"$tmp/fp.log" 2>&1 || { cat "$tmp/fp.log"; fail "find_package: build"; }
"$tmp/fp/consumer" || fail "find_package: the program"

# pkg-config.
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH=$lib/pkgconfig pkg-config --cflags --libs tessera) || fail "pkg-config"
  # shellcheck disable=SC2086
  c++ -std=c++20 "$src/tests/cli/consumer/main.cpp" $flags -o "$tmp/pc" || fail "pkg-config: build"
  LD_LIBRARY_PATH=$lib "$tmp/pc" || fail "pkg-config: the program"
else
  echo "(pkg-config not installed: that way not tried)"
fi

# add_subdirectory, GTest unavailable on purpose.
cmake -S "$src/tests/cli/consumer" -B "$tmp/sub" -G Ninja -DTESSERA_SOURCE_DIR="$src" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON >"$tmp/sub.log" 2>&1 || { cat "$tmp/sub.log"; fail "add_subdirectory: configure"; }
extra=$(cmake --build "$tmp/sub" --target help 2>/dev/null | grep -E '(unit_|_tests|bench_|_example|parity_|tessera_python_module)' | head -3)
[ -z "$extra" ] || fail "add_subdirectory builds tests or extras: $extra"
if [ "${TESSERA_CONSUMER_SUBDIR_BUILD:-0}" = 1 ]; then
  cmake --build "$tmp/sub" >>"$tmp/sub.log" 2>&1 || { tail -30 "$tmp/sub.log"; fail "add_subdirectory: build"; }
  "$tmp/sub/consumer" || fail "add_subdirectory: the program"
  echo "add_subdirectory: built and ran"
else
  echo "add_subdirectory: configured without GTest, no test or extra targets (TESSERA_CONSUMER_SUBDIR_BUILD=1 builds it)"
fi
echo "consumer project: find_package, pkg-config and add_subdirectory ok"
