#!/usr/bin/env bash
# Runs the `RUN:` lines of one lit test file (a minimal lit):
#   run-lit.sh FILE TOOLS_DIR FILECHECK
# %s is replaced by FILE; the build's tools and FileCheck are on PATH.
# A line ending in `\` continues on the next RUN line.
set -euo pipefail
file=$1 tools=$2 filecheck=$3
export PATH="$tools:$(dirname "$filecheck"):$PATH"
cmd=""
status=0
while IFS= read -r line; do
  [[ $line =~ RUN:(.*)$ ]] || continue
  part=${BASH_REMATCH[1]}
  if [[ $part =~ ^(.*)\\[[:space:]]*$ ]]; then cmd+="${BASH_REMATCH[1]} "; continue; fi
  cmd+="$part"
  cmd=${cmd//%s/$file}
  echo "RUN: $cmd"
  if ! bash -o pipefail -c "$cmd"; then status=1; fi
  cmd=""
done < "$file"
if ! grep -q 'RUN:' "$file"; then echo "no RUN line in $file"; exit 1; fi
exit $status
