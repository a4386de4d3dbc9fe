#!/usr/bin/env bash
# Runs every benchmark against the built binary. Not part of the tests.
set -euo pipefail
build=${1:-build}
for b in "$build"/bench/*_bench; do
  echo "== $(basename "$b")"
  "$b"
done
