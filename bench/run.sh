#!/usr/bin/env bash
# Runs every benchmark against the built binary. Not part of the tests.
set -euo pipefail
build=${1:-build}
for b in "$build"/bench/*_bench; do
  echo "== $(basename "$b")"
  "$b"
done
# The review page in a browser: skips where puppeteer-core or Chromium is missing.
echo "== review_page"
"$(dirname "$0")/review_page.sh" "$build/editd"
