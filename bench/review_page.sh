#!/bin/sh
# review_page.sh EDITD: review_page.mjs (the review page in Debian's headless Chromium, driven by
# puppeteer-core) with the Node that tests/clients/browser pins (puppeteer-core needs Node 22;
# Debian 12's is 18). Where puppeteer-core or Chromium is missing it says so and skips (exit 0):
# a benchmark, not a test. EDITD_BROWSER_MODULES names another node_modules holding
# puppeteer-core (and .bin/node); EDITD_CHROMIUM another Chromium.
here=$(cd "$(dirname "$0")" && pwd)
editd=${1:?usage: review_page.sh EDITD}
modules=${EDITD_BROWSER_MODULES:-$here/../tests/clients/browser/node_modules}
chromium=${EDITD_CHROMIUM:-/usr/bin/chromium}
node="$modules/.bin/node"
[ -x "$node" ] || node=$(command -v node)
if [ ! -e "$modules/puppeteer-core/package.json" ]; then
  echo "review_page: SKIPPED: no puppeteer-core in $modules (npm ci --prefix tests/clients/browser)"
  exit 0
fi
if [ ! -x "$chromium" ]; then
  echo "review_page: SKIPPED: no Chromium at $chromium (apt-get install chromium)"
  exit 0
fi
if [ -z "$node" ] || [ "$("$node" -p 'process.versions.node.split(".")[0] >= 20')" != true ]; then
  echo "review_page: SKIPPED: puppeteer-core needs Node 20 or later (${node:-none} is older)"
  exit 0
fi
exec "$node" "$here/review_page.mjs" "$(realpath "$editd")" "$chromium" "$(realpath "$modules")"
