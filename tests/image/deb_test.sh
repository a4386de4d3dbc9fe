#!/usr/bin/env bash
# The Debian package, installed for real (make deb-test, after make deb): apt installs
# build/editd_*.deb in a fresh debian:bookworm-slim (made locally by ../shared/container, see its
# README), must pull in the shared libraries editd links, and `editd --version` must run there.
# One PASS or FAIL line per step; exit 0 only if every step passed.
#
#   tests/image/deb_test.sh [DEB]        # default: the newest build/editd_*.deb; CONTAINER_DIR
set -uo pipefail

cd "$(dirname "$0")/../.."
CONTAINER_DIR=${CONTAINER_DIR:-../shared/container}
BASE=docker.io/library/debian:bookworm-slim
TAG=localhost/editd-deb-test

failures=0
pass() { printf 'PASS  %s\n' "$1"; }
fail() {
  printf 'FAIL  %s\n' "$1"; failures=$((failures + 1))
  if [ $# -gt 1 ] && [ -n "$2" ]; then printf '%s\n' "$2" | tail -25 | sed 's/^/      /'; fi
}
finish() {
  echo "----"
  if [ "$failures" -eq 0 ]; then echo "deb test: every step passed"; exit 0; fi
  echo "deb test: $failures step(s) failed"; exit 1
}

deb=${1:-$(ls -t build/editd_*.deb 2>/dev/null | head -1)}
[ -n "$deb" ] && [ -f "$deb" ] || { fail "a package: no build/editd_*.deb (make deb)"; finish; }
[ -x "$CONTAINER_DIR/build.sh" ] || { fail "prerequisite: $CONTAINER_DIR/build.sh (see its README)"; finish; }
depends=$(dpkg-deb -f "$deb" Depends)
pass "package $(basename "$deb"): Depends: $depends"
[ -n "$depends" ] || fail "the package declares its shared-library dependencies"

if podman image exists "$BASE"; then pass "base image $BASE is present"
elif out=$("$CONTAINER_DIR/make-base-image.sh" 2>&1); then pass "base image $BASE made"
else fail "base image $BASE made" "$out"; finish; fi

ctx=$(mktemp -d /tmp/editd-deb-test.XXXXXX)
trap 'rm -rf "$ctx"; podman rmi -f "$TAG" >/dev/null 2>&1' EXIT
name=$(basename "$deb")
cp "$deb" "$ctx/"
# What dpkg has before and after, as "Package Provides" lines, in the same build step.
cat >"$ctx/Containerfile" <<EOF
FROM debian:bookworm-slim
COPY $name /tmp/
RUN dpkg-query -W -f '\${Package} \${Provides}\n' >/tmp/dpkg-before \\
 && apt-get update -qq \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/$name \\
 && rm -rf /var/lib/apt/lists/* \\
 && dpkg-query -W -f '\${Package} \${Provides}\n' >/tmp/dpkg-after
EOF

if "$CONTAINER_DIR/build.sh" "$ctx" "$TAG" >"$ctx/build.log" 2>&1; then
  pass "apt-get install -y --no-install-recommends /tmp/$name in a fresh $BASE"
else
  fail "apt-get install -y --no-install-recommends /tmp/$name in a fresh $BASE" "$(cat "$ctx/build.log")"; finish
fi
"$CONTAINER_DIR/run.sh" "$TAG" -- cat /tmp/dpkg-before >"$ctx/before" &&
  "$CONTAINER_DIR/run.sh" "$TAG" -- cat /tmp/dpkg-after >"$ctx/after" ||
  { fail "the package lists before and after the install"; finish; }

# Each dependency (its first alternative; a virtual one counts when an installed package provides
# it) was in the base image or was pulled in by apt, and apt pulled in at least one.
report=$(python3 - "$depends" "$ctx/before" "$ctx/after" <<'EOF'
import re, sys
def installed(path):
    names, provided = set(), {}
    for line in open(path):
        package, _, provides = line.strip().partition(" ")
        names.add(package)
        for p in filter(None, (re.sub(r"\(.*?\)", "", x).strip() for x in provides.split(","))):
            provided.setdefault(p, package)
    return names, provided
def by(name, state):
    return name if name in state[0] else state[1].get(name)
before, after = installed(sys.argv[2]), installed(sys.argv[3])
new = sorted(after[0] - before[0] - {"editd"})
print(f"INFO apt installed beside editd: {' '.join(new) or '(nothing)'}")
for dep in (re.sub(r"\(.*?\)", "", d.split("|")[0]).strip() for d in sys.argv[1].split(",")):
    if by(dep, before):
        print(f"OK {dep}: in the base image ({by(dep, before)})")
    elif by(dep, after):
        print(f"OK {dep}: pulled in by apt ({by(dep, after)})")
    else:
        print(f"BAD {dep}: not installed")
print("OK apt pulled in the missing dependencies" if new else "BAD apt pulled in nothing")
EOF
)
while IFS= read -r line; do
  case "$line" in
    INFO*) echo "      ${line#INFO }" ;;
    OK*) pass "${line#OK }" ;;
    *) fail "${line#BAD }" ;;
  esac
done <<<"$report"

out=$("$CONTAINER_DIR/run.sh" "$TAG" -- editd --version 2>&1); status=$?
if [ "$status" -eq 0 ] && [[ "$out" == "editd "* ]]; then pass "editd --version: $out"
else fail "editd --version" "exit $status: $out"; fi
out=$("$CONTAINER_DIR/run.sh" "$TAG" -- sh -c 'command -v editd; dpkg -L editd | grep -c /usr/share/doc/editd/' 2>&1)
if [ "$(head -1 <<<"$out")" = /usr/bin/editd ]; then
  pass "installed as /usr/bin/editd with $(tail -1 <<<"$out") files under /usr/share/doc/editd"
else fail "installed as /usr/bin/editd" "$out"; fi

finish
