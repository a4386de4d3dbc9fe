# editd as a container sidecar: serves /workspace on the Unix socket /run/editd/editd.sock.
#
#   make image                      # docker or podman build, tagged localhost/editd
#   docker run -d --name editd \
#     -v "$PWD":/workspace -v editd-socket:/run/editd localhost/editd
#
# See docs/deployment.md ("Container") for the user, TCP with a token file, the health check and
# SIGTERM. The build stage uses the project's own CMake; the final stage holds only the binary and
# the shared libraries it links (ldd: libspdlog.so.1.10, libfmt.so.9, libxxhash.so.0, and
# libstdc++/libgcc/libc, which the base image has).

# --- build ---------------------------------------------------------------------------------------
FROM debian:bookworm-slim AS build

# Boost 1.81, not Debian's default libboost-dev (1.74, which conflicts with it).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      cmake g++ make pkg-config libboost1.81-dev nlohmann-json3-dev libspdlog-dev libfmt-dev \
      libxxhash-dev \
 && rm -rf /var/lib/apt/lists/*

# The context has no .git (.dockerignore): `editd --version` names the commit passed here, else
# "unknown". make image passes it when its builder takes build arguments.
ARG EDITD_COMMIT=""
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -DCMAKE_BUILD_TYPE=Release -DEDITD_BUILD_TESTS=OFF \
      -DEDITD_COMMIT="${EDITD_COMMIT}" \
 && cmake --build /build -j"$(nproc)" --target editd \
 && cmake --install /build --prefix /opt/editd --strip \
 && /opt/editd/bin/editd --version

# --- runtime -------------------------------------------------------------------------------------
FROM debian:bookworm-slim

RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libspdlog1.10 libfmt9 libxxhash0 \
 && apt-get clean && rm -rf /var/lib/apt/lists/*

# A dedicated user with a fixed uid/gid, so that volumes, `--user`, compose's `user:` and a pod's
# runAsUser can name it: deploy/compose.yaml and deploy/kubernetes/pod.yaml use 10001 too.
RUN groupadd --gid 10001 editd \
 && useradd --uid 10001 --gid editd --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin editd \
 && mkdir -p /workspace /run/editd \
 && chown editd:editd /workspace /run/editd \
 && chmod 0750 /run/editd

COPY --from=build /opt/editd/bin/editd /usr/local/bin/editd

# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
# A fresh named volume takes the ownership above (10001); a bind mount keeps the host's (see
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
