# Sourced by the CLI tests that assemble: exits 77 (ctest: skipped) with
# `why` when `tessera info` reports no CUDA toolkit.
#   require_toolkit TESSERA WHY
require_toolkit() {
  if ! "$1" info 2>&1 | grep -q '^toolkit: available'; then
    echo "no CUDA toolkit: $2"
    exit 77
  fi
}
