# editd as a container sidecar: serves /workspace on the Unix socket /run/editd/editd.sock.
#
#   make image                      # docker or podman build, tagged localhost/editd
#   docker run -d --name editd --user "$(id -u):$(id -g)" \
#     -v "$PWD":/workspace -v editd-socket:/run/editd localhost/editd
#
# editd runs as the owner of the files it edits (--user): it cannot write a file of another user,
# and a file it replaces keeps its owner only if it is editd's own. Any uid works: the socket
# directory is writable by all, as /tmp is (sticky), and the socket in it is mode 0600, so clients
# run as the same uid. Without --user, editd runs as uid 10001, and a bind-mounted workspace must
# belong to it.
#
# See docs/deployment.md ("Container") for the user, TCP with a token file, the health check and
# SIGTERM. The build stage uses the project's own CMake; the final stage holds only the binary and
# the shared libraries it links (ldd: libspdlog.so.1.10, libfmt.so.9, libxxhash.so.0,
# libsqlite3.so.0, libpcre2-8.so.0, libgit2.so.1.5, and libstdc++/libgcc/libc, which the base
# image has).

# --- build ---------------------------------------------------------------------------------------
FROM debian:bookworm-slim AS build

# Boost 1.81, not Debian's default libboost-dev (1.74, which conflicts with it).
# Node.js and npm: the build fetches the review page's npm packages (npm ci) and embeds them.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake g++ make pkg-config libboost1.81-dev nlohmann-json3-dev libspdlog-dev libfmt-dev \
      libxxhash-dev libsqlite3-dev libpcre2-dev libgit2-dev nodejs npm \
 && rm -rf /var/lib/apt/lists/*

# The context has no .git (.dockerignore): `editd --version` names the commit passed here
# (docker build --build-arg EDITD_COMMIT="$(git rev-parse --short=12 HEAD)"), else the one in the
# file .editd-commit that make image writes into the context for the build, else "unknown".
ARG EDITD_COMMIT=""
WORKDIR /src
COPY . .
RUN commit="${EDITD_COMMIT:-$(cat .editd-commit 2>/dev/null || true)}" \
 && cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DEDITD_BUILD_TESTS=OFF \
      -DEDITD_COMMIT="${commit}" \
 && cmake --build /build -j"$(nproc)" --target editd \
 && cmake --install /build --prefix /opt/editd --strip \
 && /opt/editd/bin/editd --version

# --- runtime -------------------------------------------------------------------------------------
FROM debian:bookworm-slim

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libspdlog1.10 libfmt9 libxxhash0 libsqlite3-0 libpcre2-8-0 libgit2-1.5 \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

# A dedicated user with a fixed uid/gid, so that volumes, `--user`, compose's `user:` and a pod's
# runAsUser can name it: deploy/compose.yaml and deploy/kubernetes/pod.yaml use 10001 too.
RUN groupadd --gid 10001 editd \
 && useradd --uid 10001 --gid editd --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin editd \
 && mkdir -p /workspace /run/editd \
 && chown editd:editd /workspace /run/editd \
 && chmod 1777 /run/editd

COPY --from=build /opt/editd/bin/editd /usr/local/bin/editd

# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
# A fresh named volume takes the ownership and modes above; a bind mount keeps the host's (see
# docs/deployment.md: the host directory must be writable by uid 10001, or run with --user).
VOLUME ["/workspace", "/run/editd"]
WORKDIR /workspace

# SIGTERM drains: new requests answer `cancelled`, started writes complete, the socket file is
# removed, editd exits 0. Give the runtime a stop timeout above --shutdown-grace (10 s).
STOPSIGNAL SIGTERM
# An initialize round trip on the socket (exit 0 only on editd's own answer; it waits 5 s).
HEALTHCHECK --interval=30s --timeout=10s --start-period=5s --retries=3 \
  CMD ["editd", "probe", "unix:/run/editd/editd.sock"]

ENTRYPOINT ["editd"]
# TCP as well (the token from a mounted file, never argv or env):
#   ... localhost/editd --root /workspace --listen unix:/run/editd/editd.sock \
#         --listen tcp:0.0.0.0:7070 --token-file /run/secrets/editd-token
CMD ["--root", "/workspace", "--listen", "unix:/run/editd/editd.sock"]
