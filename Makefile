# editd: the two commands a new user needs on a fresh Debian machine.
#   make run    install missing packages, build, serve on stdio with . as the root
#   make test   the same set-up, then the whole test suite (ctest)
#   make bench  build and run the benchmarks (never part of the tests)

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= 2
DEBIAN_PACKAGES := cmake g++ make pkg-config libboost1.81-dev nlohmann-json3-dev \
                   libspdlog-dev libfmt-dev libxxhash-dev doctest-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps configure build run test bench clean

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
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

run: build
	$(BUILD_DIR)/editd --root .

# The ACP client test's npm packages (package-lock.json), installed again only when the lock changes.
ACP_CLIENT := tests/clients/acp

test: build
	@[ $(ACP_CLIENT)/node_modules/.package-lock.json -nt $(ACP_CLIENT)/package-lock.json ] || \
	  npm ci --prefix $(ACP_CLIENT) --no-audit --no-fund
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

bench: build
	bench/run.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
