#!/bin/sh
# loopback_only.sh PROGRAM ARGS...: runs PROGRAM in a network namespace of its own whose only
# interface is loopback, brought up (ip from iproute2, or the same two ioctls from python3 where a
# minimal system has no ip): all that the real hosts, browsers and language servers the tests run
# may reach. As root the namespace is unshare --net; otherwise a user namespace maps the caller to
# root in it (unshare --map-root-user --net). Exit 77, with a line on stderr, when no such
# namespace can be made here; the caller decides whether that skips or fails.
if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  ns="unshare --net"
elif unshare --map-root-user --net true 2>/dev/null; then
  ns="unshare --map-root-user --net"
else
  echo "no network namespace with only loopback can be made here (unshare --net)" >&2
  exit 77
fi
exec $ns -- sh -c '
  if command -v ip >/dev/null 2>&1; then ip link set lo up; else python3 -c "
import fcntl, socket, struct
s = socket.socket(); req = struct.pack(\"16sH14x\", b\"lo\", 0)
flags = struct.unpack(\"16sH14x\", fcntl.ioctl(s, 0x8913, req))[1]  # SIOCGIFFLAGS
fcntl.ioctl(s, 0x8914, struct.pack(\"16sH14x\", b\"lo\", flags | 1))  # SIOCSIFFLAGS, IFF_UP
"; fi || exit 1
  exec "$@"' sh "$@"
