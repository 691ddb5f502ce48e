# gestured: build, run the example, test.
#
#   make run    install missing build dependencies, build, check the shipped config and
#               replay the example recording through it
#   make test   install missing build dependencies, run every test
#
# SCRATCH picks SwiftPM's build directory (default .build), so several checkouts or
# engineers can build side by side: `make test SCRATCH=.build-mine`.

SWIFT ?= swift
SCRATCH ?= .build
CONFIG ?= config/gestured.yaml
EXAMPLE ?= examples/double-tap-and-swipe.evemu
# Flags for swift build/test: warnings fail the build (override with SWIFT_FLAGS=).
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors

# Debian package names of the C libraries the package links (pkg-config names:
# libevdev, libudev, yaml-0.1).
APT_PACKAGES := libevdev-dev libudev-dev libyaml-dev pkg-config
# apt-get needs root: use sudo only when we are not root already.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

BUILD := $(SWIFT) build --scratch-path $(SCRATCH) $(SWIFT_FLAGS)
GESTURED := $(SCRATCH)/release/gestured

.PHONY: all deps build run test test-unit format lint clean

all: build

deps:
	@if pkg-config --exists libevdev libudev yaml-0.1 2>/dev/null; then \
	  echo "deps: libevdev, libudev and libyaml are installed"; \
	else \
	  echo "deps: installing $(APT_PACKAGES)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	fi

build: deps
	$(BUILD) -c release --product gestured

# Until the daemon exists (a later issue), this is what gestured can show: the config
# checked, and the example recording's gestures as replay reports them.
run: build
	$(GESTURED) check --config $(CONFIG)
	$(GESTURED) replay --config $(CONFIG) $(EXAMPLE)

test: deps
	$(SWIFT) test --scratch-path $(SCRATCH) $(SWIFT_FLAGS)

# The unit tests are all the tests for now; the VM tests of a later issue will not be.
test-unit: deps
	$(SWIFT) test --scratch-path $(SCRATCH) $(SWIFT_FLAGS)

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

lint:
	$(SWIFT) format lint -r Sources Tests Package.swift

clean:
	rm -rf $(SCRATCH)
