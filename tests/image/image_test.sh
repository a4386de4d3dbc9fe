#!/usr/bin/env bash
# The container image, tested for real (make image-test; minutes, never part of make test).
#
# Builds the Dockerfile with this machine's podman wrapper (../shared/container, see its README:
# no registry and no Docker engine here, so debian:bookworm-slim is made locally and `run.sh`
# stands in for `docker run`: the image's files, USER, ENV and WORKDIR, no namespaces), then:
# starts the image's default command with a host directory as /workspace and another as
# /run/editd, edits a file from the host through the socket, checks its content, owner and mode,
# runs the image's HEALTHCHECK command, sends SIGTERM (what `docker stop` sends) and checks the
# exit status, the time it took and that the socket file is gone; then the same with TCP and a
# token file. One PASS or FAIL line per step; exit 0 only if every step passed.
#
#   tests/image/image_test.sh            # IMAGE (default localhost/editd), CONTAINER_DIR,
#                                        # STOP_GRACE (default 10: docker stop's), TCP_PORT
set -uo pipefail

cd "$(dirname "$0")/../.."
IMAGE=${IMAGE:-localhost/editd}
CONTAINER_DIR=${CONTAINER_DIR:-../shared/container}
STOP_GRACE=${STOP_GRACE:-10}
TCP_PORT=${TCP_PORT:-7070}
BASE=docker.io/library/debian:bookworm-slim
UID_GID=10001:10001  # the Dockerfile's user

failures=0
pass() { printf 'PASS  %s\n' "$1"; }
fail() {
  printf 'FAIL  %s\n' "$1"; failures=$((failures + 1))
  if [ $# -gt 1 ] && [ -n "$2" ]; then printf '%s\n' "$2" | tail -25 | sed 's/^/      /'; fi
}
check() {  # check NAME CMD...: PASS if CMD exits 0
  local name=$1; shift
  local out; if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi
}
finish() {
  echo "----"
  if [ "$failures" -eq 0 ]; then echo "image test: every step passed"; exit 0; fi
  echo "image test: $failures step(s) failed"; exit 1
}

for tool in podman python3 pgrep; do
  command -v "$tool" >/dev/null || { fail "prerequisite: $tool is not installed"; finish; }
done
[ -x "$CONTAINER_DIR/run.sh" ] || { fail "prerequisite: $CONTAINER_DIR/run.sh (see its README)"; finish; }
[ "$(id -u)" = 0 ] || { fail "prerequisite: run.sh mounts and chroots, so this runs as root"; finish; }

tmp=$(mktemp -d /tmp/editd-image-test.XXXXXX)
server_pid=""; run_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi
  if [ -n "$run_pid" ]; then wait "$run_pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# --- 1. the base image and the build ---------------------------------------------------------------
if podman image exists "$BASE"; then
  pass "base image $BASE is present"
else
  check "base image $BASE made from Debian's packages" "$CONTAINER_DIR/make-base-image.sh"
fi
started=$SECONDS
# Docker's image format: the OCI format has no HEALTHCHECK.
if BUILDAH_FORMAT=docker "$CONTAINER_DIR/build.sh" . "$IMAGE" >"$tmp/build.log" 2>&1; then
  pass "image $IMAGE built from ./Dockerfile ($((SECONDS - started)) s)"
else
  fail "image $IMAGE built from ./Dockerfile" "$(cat "$tmp/build.log")"; finish
fi

# --- 2. what the image declares ---------------------------------------------------------------------
podman image inspect "$IMAGE" >"$tmp/inspect.json" 2>&1 || { fail "podman image inspect" "$(cat "$tmp/inspect.json")"; finish; }
declared=$(python3 - "$tmp/inspect.json" <<'EOF'
import json, sys
image = json.load(open(sys.argv[1]))[0]
config = image.get("Config") or {}
health = image.get("HealthCheck") or image.get("Healthcheck") or config.get("Healthcheck") or {}
expect = {
    "User": "10001:10001",
    "WorkingDir": "/workspace",
    "StopSignal": "SIGTERM",
    "Entrypoint + Cmd": ["editd", "--root", "/workspace", "--listen", "unix:/run/editd/editd.sock"],
    "Volumes": ["/run/editd", "/workspace"],
    "Healthcheck": ["CMD", "editd", "probe", "unix:/run/editd/editd.sock"],
}
got = {
    "User": config.get("User"),
    "WorkingDir": config.get("WorkingDir"),
    "StopSignal": config.get("StopSignal"),
    "Entrypoint + Cmd": (config.get("Entrypoint") or []) + (config.get("Cmd") or []),
    "Volumes": sorted(config.get("Volumes") or {}),
    "Healthcheck": health.get("Test"),
}
bad = [f"{k}: {got[k]!r}, expected {v!r}" for k, v in expect.items() if got[k] != v]
print("\n".join(bad) if bad else "ok " + json.dumps(got["Entrypoint + Cmd"]) + " " +
      json.dumps(got["Healthcheck"][1:]) + f" {image.get('Size', 0) // 1000000} MB")
EOF
)
case "$declared" in
  ok*) pass "image config: user 10001:10001, /workspace, /run/editd, SIGTERM, HEALTHCHECK (${declared#ok })" ;;
  *) fail "image config" "$declared" ;;
esac
# What run.sh starts: the image's own Entrypoint + Cmd and HEALTHCHECK, read back from it.
mapfile -t default_cmd < <(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))[0]["Config"]; [print(a) for a in (c.get("Entrypoint") or [])+(c.get("Cmd") or [])]' "$tmp/inspect.json")
mapfile -t health_cmd < <(python3 -c 'import json,sys; i=json.load(open(sys.argv[1]))[0]; h=i.get("HealthCheck") or i.get("Healthcheck") or i["Config"].get("Healthcheck") or {"Test":["CMD","false"]}; [print(a) for a in h["Test"][1:]]' "$tmp/inspect.json")

out=$("$CONTAINER_DIR/run.sh" "$IMAGE" -- sh -c \
  'echo "user $(id -u):$(id -g)"; editd --version; for t in cmake g++ make; do command -v $t; done; true' 2>&1)
if [[ "$out" == *"user $UID_GID"*"editd "* ]] && ! grep -qE '/(cmake|g\+\+|make)$' <<<"$out"; then
  pass "runs as $UID_GID, its runtime libraries resolve, no toolchain: $(grep '^editd ' <<<"$out")"
else
  fail "user, runtime libraries and no toolchain in the final stage" "$out"
fi

# --- 3. the default command with a host workspace and socket directory ---------------------------
ws=$tmp/workspace; sockdir=$tmp/run-editd; sock=$sockdir/editd.sock
mkdir -p "$ws/src" "$sockdir"
printf 'alpha\r\nbeta\r\ngamma\r\n' >"$ws/src/notes.txt"
# The image's user owns what it edits (docs/deployment.md: chown, or run with --user).
chown -R "$UID_GID" "$ws" "$sockdir"
chmod 0640 "$ws/src/notes.txt"
chmod 0750 "$sockdir"
before=$(stat -c '%u:%g %a' "$ws/src/notes.txt")

# start SERVER_LOG BIND... -- CMD...: run.sh in the background; sets run_pid and server_pid (the
# editd process: run.sh's child, as env, chroot and sh each exec the next) once SOCKET exists.
start() {
  local log=$1 socket=$2; shift 2
  "$CONTAINER_DIR/run.sh" "$IMAGE" "$@" >"$log" 2>&1 &
  run_pid=$!; server_pid=""
  for _ in $(seq 600); do
    [ -n "$server_pid" ] || server_pid=$(pgrep -P "$run_pid" -x editd || true)
    if [ -n "$server_pid" ] && [ -S "$socket" ]; then return 0; fi
    kill -0 "$run_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# stop NAME LOG SOCKET: SIGTERM to editd, then exit status 0 within STOP_GRACE, socket file gone.
stop() {
  local name=$1 log=$2 socket=$3 t0 elapsed status
  t0=$(date +%s%N)
  kill -TERM "$server_pid"
  for _ in $(seq $((STOP_GRACE * 10))); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
  elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
  if kill -0 "$server_pid" 2>/dev/null; then
    fail "$name: SIGTERM: exits within ${STOP_GRACE} s" "still running after ${elapsed} ms"; return
  fi
  wait "$run_pid"; status=$?; run_pid=""; server_pid=""
  if [ "$status" -eq 0 ]; then
    pass "$name: SIGTERM: editd exited 0 in ${elapsed} ms (grace ${STOP_GRACE} s)"
  else
    fail "$name: SIGTERM: exit status $status" "$(cat "$log")"
  fi
  if [ -e "$socket" ]; then fail "$name: the socket file is removed at exit" "$(ls -l "$socket")"
  else pass "$name: the socket file is removed at exit"; fi
}

echo "      run.sh $IMAGE --bind $ws:/workspace --bind $sockdir:/run/editd -- ${default_cmd[*]}"
if start "$tmp/server.log" "$sock" --bind "$ws:/workspace" --bind "$sockdir:/run/editd" -- "${default_cmd[@]}"; then
  pass "default command serves unix:/run/editd/editd.sock (pid $server_pid, socket $(stat -c '%u:%g %a' "$sock"))"
else
  fail "default command serves unix:/run/editd/editd.sock" "$(cat "$tmp/server.log")"; finish
fi

# From the host: initialize, read_text, str_replace with the fingerprint, over the socket.
edit=$(python3 - "$sock" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
f = s.makefile("rwb")
def call(i, method, params):
    f.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode()); f.flush()
    answer = json.loads(f.readline())
    if "result" not in answer: sys.exit(f"{method}: {answer}")
    return answer["result"]
init = call(1, "initialize", {"protocolVersion": 1, "clientInfo": {"name": "image-test"}})
read = call(2, "read_text", {"path": "src/notes.txt"})
assert read["content"] == "alpha\r\nbeta\r\ngamma\r\n", read
done = call(3, "str_replace", {"path": "src/notes.txt", "oldText": "beta", "newText": "BETA",
                              "expectedFingerprint": read["fingerprint"]})
assert done["replacements"] == 1, done
print(f'{init["agentInfo"]["name"]} {init["agentInfo"]["version"]}, {done["fingerprint"]}')
EOF
)
if [ $? -eq 0 ]; then pass "from the host: initialize, read_text, str_replace through the socket ($edit)"
else fail "from the host: initialize, read_text, str_replace through the socket" "$edit"; fi

if cmp -s "$ws/src/notes.txt" <(printf 'alpha\r\nBETA\r\ngamma\r\n'); then
  pass "edited file on the host: alpha\\r\\nBETA\\r\\ngamma\\r\\n (CRLF kept)"
else fail "edited file on the host" "$(od -c "$ws/src/notes.txt")"; fi
after=$(stat -c '%u:%g %a' "$ws/src/notes.txt")
if [ "$after" = "$before" ]; then pass "owner and mode unchanged ($after)"
else fail "owner and mode unchanged" "before $before, after $after"; fi
leftovers=$(cd "$ws" && find . -mindepth 1 ! -path ./src ! -path ./src/notes.txt)
if [ -z "$leftovers" ]; then pass "no temporary file or journal left in the workspace"
else fail "no temporary file or journal left in the workspace" "$leftovers"; fi

echo "      run.sh $IMAGE --bind $sockdir:/run/editd -- ${health_cmd[*]}"
check "health check (the image's HEALTHCHECK) exits 0" \
  "$CONTAINER_DIR/run.sh" "$IMAGE" --bind "$sockdir:/run/editd" -- "${health_cmd[@]}"

stop "unix" "$tmp/server.log" "$sock"

out=$("$CONTAINER_DIR/run.sh" "$IMAGE" --bind "$sockdir:/run/editd" -- "${health_cmd[@]}" 2>&1); status=$?
if [ "$status" -eq 1 ]; then pass "health check after the stop exits 1 ($(tail -1 <<<"$out"))"
else fail "health check after the stop exits 1" "exit $status: $out"; fi

# --- 4. as the owner of the files (--user), with a socket directory that user owns ------------
other=20002:20002  # a uid the image does not know, as a host user's would be
ws2=$tmp/workspace-user; sockdir2=$tmp/run-user
mkdir -p "$ws2" "$sockdir2"
printf 'one\ntwo\n' >"$ws2/a.txt"
chown -R "$other" "$ws2" "$sockdir2"; chmod 0600 "$ws2/a.txt"
echo "      run.sh $IMAGE --user $other --bind $ws2:/workspace --bind $sockdir2:/run/editd -- ${default_cmd[*]}"
if start "$tmp/user.log" "$sockdir2/editd.sock" --user "$other" --bind "$ws2:/workspace" \
     --bind "$sockdir2:/run/editd" -- "${default_cmd[@]}"; then
  out=$(python3 - "$sockdir2/editd.sock" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); f = s.makefile("rwb")
f.write(b'{"jsonrpc":"2.0","id":1,"method":"str_replace","params":{"path":"a.txt","oldText":"two","newText":"2"}}\n'); f.flush()
answer = json.loads(f.readline())
print(answer.get("result", {}).get("replacements", answer))
EOF
  )
  if [ "$out" = 1 ] && cmp -s "$ws2/a.txt" <(printf 'one\n2\n') && [ "$(stat -c '%u:%g %a' "$ws2/a.txt")" = "$other 600" ]; then
    pass "--user $other: edits the files of uid ${other%%:*}, owner and mode unchanged ($other 600)"
  else
    fail "--user $other: edits the files of uid ${other%%:*}" "$out; $(stat -c '%u:%g %a' "$ws2/a.txt"); $(cat "$tmp/user.log")"
  fi
  stop "--user" "$tmp/user.log" "$sockdir2/editd.sock"
else
  fail "--user $other: serves unix:/run/editd/editd.sock" "$(cat "$tmp/user.log")"
fi

# --- 5. TCP, the token from a mounted file -------------------------------------------------------
if ss -Htln "sport = :$TCP_PORT" | grep -q .; then
  TCP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
secrets=$tmp/secrets; mkdir -p "$secrets"
python3 -c 'import secrets; print(secrets.token_hex(32))' >"$secrets/editd-token"
chown -R "$UID_GID" "$secrets"; chmod 0500 "$secrets"; chmod 0400 "$secrets/editd-token"
tcp_cmd=("${default_cmd[@]}" --listen "tcp:0.0.0.0:$TCP_PORT" --token-file /run/secrets/editd-token)
echo "      run.sh $IMAGE --bind $ws:/workspace --bind $sockdir:/run/editd --bind $secrets:/run/secrets -- ${tcp_cmd[*]}"
listening() {
  for _ in $(seq 100); do ss -Htln "sport = :$1" | grep -q . && return 0; sleep 0.1; done; return 1
}
if start "$tmp/tcp.log" "$sock" --bind "$ws:/workspace" --bind "$sockdir:/run/editd" \
     --bind "$secrets:/run/secrets" -- "${tcp_cmd[@]}" && listening "$TCP_PORT"; then
  pass "unix socket and tcp:0.0.0.0:$TCP_PORT with --token-file /run/secrets/editd-token"
  check "probe tcp:127.0.0.1:$TCP_PORT --token-file /run/secrets/editd-token exits 0" \
    "$CONTAINER_DIR/run.sh" "$IMAGE" --bind "$secrets:/run/secrets" -- \
    editd probe "tcp:127.0.0.1:$TCP_PORT" --token-file /run/secrets/editd-token
  out=$("$CONTAINER_DIR/run.sh" "$IMAGE" -- editd probe "tcp:127.0.0.1:$TCP_PORT" 2>&1); status=$?
  if [ "$status" -eq 1 ]; then pass "probe over TCP without the token exits 1 ($(tail -1 <<<"$out"))"
  else fail "probe over TCP without the token exits 1" "exit $status: $out"; fi
  check "the health check still passes on the unix socket" \
    "$CONTAINER_DIR/run.sh" "$IMAGE" --bind "$sockdir:/run/editd" -- "${health_cmd[@]}"
  if grep -qF "$(cat "$secrets/editd-token")" "$tmp/tcp.log"; then fail "the token is not logged" "$(cat "$tmp/tcp.log")"
  else pass "the token is not logged"; fi
  stop "tcp" "$tmp/tcp.log" "$sock"
else
  fail "unix socket and tcp:0.0.0.0:$TCP_PORT with --token-file" "$(cat "$tmp/tcp.log")"
fi

finish
