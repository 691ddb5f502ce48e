# gestured: build, run, test, install.
#
#   make run        install missing build dependencies, build, and run the daemon on
#                   config/gestured.yaml in the foreground (Ctrl-C stops it)
#   make test       install missing build dependencies, run every test
#   make demo       build, check config/gestured.yaml and replay the example recording
#                   through it (no device needed)
#   make install    install the binary, the systemd unit and the docs, and the config
#                   only where there is none yet; DESTDIR and PREFIX work as usual
#   make uninstall  remove what install installed, except the config
#   make deb        the Debian package $(SCRATCH)/gestured_VERSION_amd64.deb (docs/packaging.md)
#   make check-packaging  what CI checks about the package: the binary, the manual pages,
#                   the bash completion, the .deb and lintian
#   make bench      the figures of BENCHMARKS.md this machine measures (core, replay)
#   make bench-vm   the live path in a VM: gestured's CPU against lisgd's on one stream
#   make bench-vm-profile  the instructions gestured and lisgd execute on it (callgrind)
#   make bench-vm-perf  where gestured's two processes spend their CPU on it (perf samples)
#   make bench-vm-wakeups  each wake-up of a swipe, system call by system call (tracefs),
#                   and the ticks with the daemon and the player on the same vCPU or apart
#   make link-order the list of functions the release link places first (a VM run)
#
# SCRATCH picks SwiftPM's build directory (default .build), so several checkouts or
# engineers can build side by side: `make test SCRATCH=.build-mine`.

SWIFT ?= swift
SCRATCH ?= .build
CONFIG ?= config/gestured.yaml
EXAMPLE ?= examples/double-tap-and-swipe.evemu
# Flags for swift build/test: warnings fail the build (override with SWIFT_FLAGS=).
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors

# Where `make install` puts things. The config's place is fixed by the daemon's default
# (/etc/gestured/gestured.yaml); the unit's ExecStart= is rewritten to match BINDIR and
# CONFDIR. /lib/systemd/system is where Debian 12 packages put units (the same directory as
# /usr/lib/systemd/system on a merged-/usr system).
PREFIX ?= /usr
BINDIR ?= $(PREFIX)/bin
DOCDIR ?= $(PREFIX)/share/doc/gestured
SYSCONFDIR ?= /etc
CONFDIR ?= $(SYSCONFDIR)/gestured
UNITDIR ?= /lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=
# The operator's documentation; docs/touchscript.md is for developers.
DOCS := README.md CHANGELOG.md docs/cli.md docs/configuration.md docs/devices.md \
  docs/logging.md docs/systemd.md docs/packaging.md

# gestured(8) and gestured.yaml(5), made by scdoc from docs/man/*.scd.
MAN_PAGES := $(SCRATCH)/man/gestured.8 $(SCRATCH)/man/gestured.yaml.5
# The config examples operators copy (config/examples/), installed with the docs.
CONFIG_EXAMPLES := $(wildcard config/examples/*.yaml)
# `make deb`: staged in DEB_STAGE with make install, written to DEB_DIR.
DEB_DIR ?= $(SCRATCH)
DEB_STAGE := $(SCRATCH)/deb-stage
DEB_MAINTAINER ?= gestured maintainers <maintainers@users.noreply.a-seed-38643ceb.example>

# Debian package names of the C libraries the package links (pkg-config names:
# libevdev, libudev, yaml-0.1, libseccomp).
APT_PACKAGES := libevdev-dev libudev-dev libyaml-dev libseccomp-dev pkg-config
# apt-get needs root: use sudo only when we are not root already.
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# Installed files are root's (a root daemon refuses a config anyone else could change);
# a packager staging into DESTDIR as an ordinary user gets their own files instead.
OWNER := $(shell [ "$$(id -u)" -eq 0 ] && echo "-o root -g root")

BUILD := $(SWIFT) build --scratch-path $(SCRATCH) $(SWIFT_FLAGS)
GESTURED := $(SCRATCH)/release/gestured
# The release binary runs where no Swift is installed: the Swift standard library and
# libdispatch linked in, no RUNPATH into the build tree or the toolchain, symbols stripped
# (`make check-binary` checks all three); full RELRO (bind now), as Debian hardens its
# binaries. What keeps its resident memory small (BENCHMARKS.md, row "RSS"):
# - lld (the toolchain's; gold has no DT_RELR) with -z pack-relative-relocs: the relative
#   relocations the loader reads at every start packed (needs glibc 2.36, Debian 12);
# - --no-export-dynamic after the static stdlib's -export-dynamic: nothing looks up the
#   executable's own symbols, so their tables go;
# - libstdc++ and libgcc's unwinder linked in (the Swift runtime needs a few string and
#   new/delete functions of libstdc++): the loader maps no libstdc++.so and its symbol
#   tables. docs/packaging.md says what this means for security updates.
# - one section per function in our modules, and the functions that start-up and the
#   event loop run placed first in .text (LINK_ORDER, which `make link-order` makes from a
#   run in the VM): the pages they touch, and those the kernel maps around each
#   page fault, hold code that runs. A listed function that no longer exists is skipped
#   without a word (--no-warn-symbol-ordering); a stale list costs memory, never
#   correctness.
# libstdc++.a is found first through STATIC_CXX_DIR: the static stdlib's link arguments
# name -lstdc++ after every flag given here, so -Bstatic cannot reach it.
STATIC_CXX_DIR := $(SCRATCH)/static-libstdc++
LINK_ORDER := Tests/Benchmarks/link-order.txt
RELEASE_LINK_FLAGS := --static-swift-stdlib --disable-local-rpath \
  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xswiftc -L$(abspath $(STATIC_CXX_DIR)) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xlinker --symbol-ordering-file=$(abspath $(LINK_ORDER)) -Xlinker --no-warn-symbol-ordering
RELEASE_FLAGS := $(RELEASE_LINK_FLAGS) -Xlinker --strip-all

.PHONY: all deps test-deps build run demo test test-unit test-example test-vm install uninstall format lint clean \
  check-binary man check-man test-completion deb check-deb check-packaging \
  fuzz fuzz-smoke fuzz-build bench bench-vm bench-vm-profile bench-vm-perf bench-vm-wakeups link-order test-asan

all: build

deps:
	@if pkg-config --exists libevdev libudev yaml-0.1 libseccomp 2>/dev/null; then \
	  echo "deps: libevdev, libudev, libyaml and libseccomp are installed"; \
	else \
	  echo "deps: installing $(APT_PACKAGES)"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $(APT_PACKAGES); \
	fi

# SwiftPM does not know LINK_ORDER: a binary older than it is removed, so that it is
# linked again.
build: deps man $(STATIC_CXX_DIR)/libstdc++.a
	@if [ $(GESTURED) -ot $(LINK_ORDER) ]; then rm -f $(GESTURED); fi
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured

# GCC's libstdc++.a (package libstdc++-12-dev, which the Swift toolchain needs too), alone
# in a directory of its own so that -lstdc++ finds it before libstdc++.so.
$(STATIC_CXX_DIR)/libstdc++.a:
	@archive="$$($(CC) -print-file-name=libstdc++.a)"; \
	  [ -f "$$archive" ] || { echo "build: no libstdc++.a (install libstdc++-12-dev)" >&2; exit 1; }; \
	  mkdir -p $(@D) && ln -sf "$$archive" $@

# The daemon in the foreground, logging to the terminal. It takes every touchscreen present
# or plugged in later; with none it logs "gestured started: 0 touchscreens" and waits.
# Reading /dev/input needs root or the input group; as root, the config (and every
# directory above it) must be root's and not writable by group or others, or gestured
# exits 78 saying so.
run: build
	@echo "run: $(GESTURED) --config $(CONFIG)  (Ctrl-C stops it; SIGHUP reloads the config)"
	$(GESTURED) --config $(CONFIG)

# What gestured recognizes in the example recording, without any device.
demo: build
	$(GESTURED) check --config $(CONFIG)
	$(GESTURED) replay --config $(CONFIG) $(EXAMPLE)

# Everything: the unit tests, each fuzzer briefly (its crashers, then FUZZ_SMOKE_SECONDS),
# the package (binary, manual pages, completion, .deb, lintian), then the real-kernel tests
# in a VM (booted once).
test: test-unit test-example fuzz-smoke check-packaging test-vm

# The unit tests alone, for a quick loop.
test-unit: deps test-deps
	$(SWIFT) test --scratch-path $(SCRATCH) $(SWIFT_FLAGS)

# The library's example apps (examples/kiosk-gestures, its own package depending on this one
# by path) built in its own scratch directory, each replaying its recording; their outputs
# must be the expected-*.txt files line for line (PhotoTable's final frames, to 0.01 of the
# panel, 0.1 of scale and 5 degrees, are the script's motions; its SVG draws three photos). The build plan is worked out anew
# each time: a cached one missed a source file added to this package (the dependency) and
# failed to compile it.
EXAMPLE_DIR := examples/kiosk-gestures
test-example: deps
	$(SWIFT) build --package-path $(EXAMPLE_DIR) --scratch-path $(SCRATCH)/example $(SWIFT_FLAGS) \
	  --disable-build-manifest-caching
	cd $(EXAMPLE_DIR) && $(abspath $(SCRATCH))/example/debug/KioskGestures demo.evemu > $(abspath $(SCRATCH))/example/output.txt
	diff -u $(EXAMPLE_DIR)/expected-output.txt $(SCRATCH)/example/output.txt
	cd $(EXAMPLE_DIR) && $(abspath $(SCRATCH))/example/debug/PhotoTable photos.evemu \
	  $(abspath $(SCRATCH))/example/photos.svg > $(abspath $(SCRATCH))/example/photos.txt
	diff -u $(EXAMPLE_DIR)/expected-photos.txt $(SCRATCH)/example/photos.txt
	grep -c '<rect ' $(SCRATCH)/example/photos.svg | grep -qx 3
	cd $(EXAMPLE_DIR) && $(abspath $(SCRATCH))/example/debug/RowList rows.evemu > $(abspath $(SCRATCH))/example/rows.txt
	diff -u $(EXAMPLE_DIR)/expected-rows.txt $(SCRATCH)/example/rows.txt
	@echo "test-example: the examples' outputs are expected-output.txt, expected-photos.txt, expected-rows.txt"
	@# A node the app may not read, as an unprivileged user: the typed failure and its remedy.
	@if [ "$$(id -u)" = 0 ] && command -v setpriv > /dev/null; then \
	  install -m 600 /dev/null $(SCRATCH)/example/private-node; \
	  status=0; setpriv --reuid=65534 --regid=65534 --clear-groups $(abspath $(SCRATCH))/example/debug/KioskGestures \
	    --device $(abspath $(SCRATCH))/example/private-node > $(SCRATCH)/example/permission.txt || status=$$?; \
	  test $$status = 2 && grep -q "private-node: permission denied: add the user to the 'input' group" \
	    $(SCRATCH)/example/permission.txt && echo "test-example: permission denied, with the remedy, as user 65534"; \
	else \
	  echo "test-example: permission denied skipped (needs root and setpriv to run as another user)"; \
	fi

# What the tests use beyond the build: libevemu3, evemu's own reader, which the generator
# tests read their recordings back with (they say "skipped" without it); for
# check-packaging, scdoc (the manual pages), man-db and groff-base (man --warnings),
# dpkg-dev (dpkg-shlibdeps) and lintian; librsvg2-bin (rsvg-convert), which the trace
# picture test renders with, and python3, which reads the PNG's colours; on amd64,
# gcc-multilib, with which the credential test builds the C shim's set-user calls for
# 32-bit x86 (where the plain system calls take 16-bit ids).
TEST_APT_PACKAGES := libevemu3 scdoc man-db groff-base dpkg-dev lintian librsvg2-bin python3 \
  $(if $(filter amd64,$(shell dpkg --print-architecture 2>/dev/null)),gcc-multilib)
test-deps:
	@missing=""; for package in $(TEST_APT_PACKAGES); do \
	  [ "$$(dpkg-query -W -f='$${Status}' $$package 2>/dev/null)" = "install ok installed" ] || \
	    missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "test-deps: installing$$missing"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# The unit tests under AddressSanitizer, the C shim also under UBSan (Swift has no
# -sanitize=undefined on Linux), in their own scratch directory (docs/testing.md#sanitizers-make-test-asan).
ASAN_SCRATCH ?= $(SCRATCH)-asan
test-asan: deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt \
	  $(SWIFT) test --scratch-path $(ASAN_SCRATCH) --sanitize address \
	  -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined

# The real-kernel tests (docs/testing.md): installs QEMU, a kernel, udev and virtme-ng when
# missing, boots one VM and runs Tests/VM/scenarios/*.sh inside against the built binaries.
test-vm: deps
	$(SUDO) Tests/VM/setup.sh
	SWIFT="$(SWIFT)" SCRATCH="$(SCRATCH)" SWIFT_FLAGS="$(SWIFT_FLAGS)" Tests/VM/run-scenarios.sh

# Built only when missing, so that `make build && sudo make install` does not need the
# toolchain on root's PATH. install copies what the last `make build` made; check-binary and
# deb build first (an up-to-date build is quick), so that they never check or package a
# binary older than the sources.
$(GESTURED):
	$(MAKE) --no-print-directory build

# Directories that exist are left as they are (install -d would reset their mode); the
# config goes in only when there is none, so an operator's config is never overwritten; the
# unit's ExecStart= and Documentation= are rewritten to where the binary and docs went.
install: $(GESTURED) $(MAN_PAGES)
	mkdir -p "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(DOCDIR)"
	[ -d "$(DESTDIR)$(CONFDIR)" ] || install -d -m 0755 $(OWNER) "$(DESTDIR)$(CONFDIR)"
	install -m 0755 $(OWNER) $(GESTURED) "$(DESTDIR)$(BINDIR)/gestured"
	@if [ -e "$(DESTDIR)$(CONFDIR)/gestured.yaml" ]; then \
	  echo "install: keeping the existing $(DESTDIR)$(CONFDIR)/gestured.yaml"; \
	else \
	  echo "install -m 0644 $(OWNER) $(CONFIG) $(DESTDIR)$(CONFDIR)/gestured.yaml"; \
	  install -m 0644 $(OWNER) $(CONFIG) "$(DESTDIR)$(CONFDIR)/gestured.yaml"; \
	fi
	@status=1; unit=$$(mktemp) && { \
	  sed -e 's|^ExecStart=/usr/bin/gestured --config /etc/gestured/gestured.yaml$$|ExecStart=$(BINDIR)/gestured --config $(CONFDIR)/gestured.yaml|' \
	    -e 's|^Documentation=file:/usr/share/doc/gestured/|Documentation=file:$(DOCDIR)/|' \
	    systemd/gestured.service > "$$unit" && \
	  if grep -qxF 'ExecStart=$(BINDIR)/gestured --config $(CONFDIR)/gestured.yaml' "$$unit"; then \
	    echo "install -m 0644 $(OWNER) systemd/gestured.service $(DESTDIR)$(UNITDIR)/gestured.service (ExecStart=$(BINDIR)/gestured)"; \
	    install -m 0644 $(OWNER) "$$unit" "$(DESTDIR)$(UNITDIR)/gestured.service"; status=$$?; \
	  else \
	    echo "install: systemd/gestured.service has no ExecStart= line to rewrite" >&2; \
	  fi; \
	  rm -f "$$unit"; }; exit $$status
	install -m 0644 $(OWNER) $(DOCS) "$(DESTDIR)$(DOCDIR)/"
	mkdir -p "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(MANDIR)/man8" "$(DESTDIR)$(MANDIR)/man5" \
	  "$(DESTDIR)$(COMPLETIONDIR)"
	install -m 0644 $(OWNER) $(CONFIG_EXAMPLES) "$(DESTDIR)$(DOCDIR)/examples/"
	install -m 0644 $(OWNER) $(SCRATCH)/man/gestured.8 "$(DESTDIR)$(MANDIR)/man8/gestured.8"
	install -m 0644 $(OWNER) $(SCRATCH)/man/gestured.yaml.5 "$(DESTDIR)$(MANDIR)/man5/gestured.yaml.5"
	install -m 0644 $(OWNER) systemd/gestured.bash-completion "$(DESTDIR)$(COMPLETIONDIR)/gestured"
	@if [ -z "$(DESTDIR)" ]; then \
	  echo; \
	  echo "Installed. Next: edit $(CONFDIR)/gestured.yaml, then"; \
	  echo "  $(BINDIR)/gestured check --config $(CONFDIR)/gestured.yaml"; \
	  echo "  systemctl daemon-reload && systemctl enable --now gestured"; \
	  echo "(a running gestured keeps its old binary until: systemctl restart gestured)"; \
	fi

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/gestured" "$(DESTDIR)$(UNITDIR)/gestured.service"
	rm -f "$(DESTDIR)$(MANDIR)/man8/gestured.8" "$(DESTDIR)$(MANDIR)/man5/gestured.yaml.5" \
	  "$(DESTDIR)$(COMPLETIONDIR)/gestured"
	for doc in $(notdir $(DOCS)); do rm -f "$(DESTDIR)$(DOCDIR)/$$doc"; done
	for example in $(notdir $(CONFIG_EXAMPLES)); do rm -f "$(DESTDIR)$(DOCDIR)/examples/$$example"; done
	@rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" 2>/dev/null || true
	@echo "uninstall: kept $(DESTDIR)$(CONFDIR)/gestured.yaml (remove it yourself if you want it gone)"
	@if [ -z "$(DESTDIR)" ]; then \
	  echo "If the service was enabled: systemctl disable --now gestured; systemctl daemon-reload"; \
	fi

# What CI asserts about the release binary: no Swift library and no RUNPATH in its dynamic
# section, stripped, and every library ldd resolves is a Debian package's (no toolchain).
check-binary: build
	systemd/debian/check-binary.sh $(GESTURED)

# The manual pages from their one source. scdoc (Debian package scdoc) is installed when
# missing, as the libraries are by deps.
man: $(MAN_PAGES)

$(SCRATCH)/man/%: docs/man/%.scd
	@command -v scdoc >/dev/null || { echo "man: installing scdoc"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y scdoc; }
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp && mv $@.tmp $@

# man's own checks (groff warnings at 80 columns) on each page; any warning fails.
check-man: $(MAN_PAGES)
	@for page in $(MAN_PAGES); do \
	  warnings=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$$page" 2>&1 >/dev/null); \
	  if [ -n "$$warnings" ]; then echo "$$page:"; echo "$$warnings"; exit 1; fi; \
	  echo "check-man: $$page: no warnings"; \
	done

# The bash completion, loaded into a plain bash: commands, options, --config files.
test-completion:
	Tests/Packaging/completion-test.sh

# The Debian package: make install into a stage, then Debian's additions (docs/packaging.md).
deb: build $(MAN_PAGES)
	rm -rf $(DEB_STAGE)
	$(MAKE) --no-print-directory install DESTDIR="$(abspath $(DEB_STAGE))" PREFIX=/usr
	systemd/debian/build-deb.sh $(DEB_STAGE) $(DEB_DIR) "$(DEB_MAINTAINER)"

# lintian on the package: errors fail; warnings are printed (docs/packaging.md says which
# remain and why).
check-deb: deb
	lintian --info --display-info --fail-on error $(DEB_DIR)/gestured_$$($(GESTURED) --version | cut -d" " -f2)_$$(dpkg --print-architecture).deb

check-packaging: test-deps check-binary check-man test-completion check-deb

# Fuzzing (docs/testing.md#fuzzing): libFuzzer targets in Tests/Fuzz for the evemu reader,
# the YAML config loader, the raw-event stream into the engine and the launcher's channel, built with swiftc straight
# from the sources (SwiftPM would build every product with the fuzzer's main). `make fuzz`
# runs each for FUZZ_SECONDS, growing a corpus in $(FUZZ_DIR); `make fuzz-smoke` replays the
# crashers kept in Tests/Fuzz/Crashers and runs each target for FUZZ_SMOKE_SECONDS from the
# seeds. A crash or a hang (FUZZ_TIMEOUT seconds on one input) fails the target, and the
# input is written to $(FUZZ_DIR)/crash-TARGET-*: keep it under Tests/Fuzz/Crashers/TARGET.
SWIFTC ?= swiftc
FUZZ_DIR := $(SCRATCH)/fuzz
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_TIMEOUT ?= 10
FUZZ_TARGETS := evemu config engine channel
FUZZ_SWIFTC := $(SWIFTC) -sanitize=fuzzer,address -O -g -parse-as-library -use-ld=lld
FUZZ_CORE_SOURCES := $(shell find Sources/GestureCore -name '*.swift')
FUZZ_CONFIG_SOURCES := $(wildcard Sources/GesturedConfig/*.swift)
FUZZ_SHARED := Tests/Fuzz/FuzzProfiles.swift
# The config reads key names through libevdev, so its module and headers come in too.
FUZZ_C_MODULES := -I Sources/CYAML -I Sources/CEvdev $(addprefix -Xcc ,$(shell pkg-config --cflags libevdev))
FUZZ_RUN_FLAGS = -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crash-$$target-

$(FUZZ_DIR)/libGestureCore.a: $(FUZZ_CORE_SOURCES)
	mkdir -p $(FUZZ_DIR)
	$(FUZZ_SWIFTC) -wmo -emit-library -static -module-name GestureCore -emit-module \
	  -emit-module-path $(FUZZ_DIR)/GestureCore.swiftmodule -o $@ $(FUZZ_CORE_SOURCES)

$(FUZZ_DIR)/libGesturedConfig.a: $(FUZZ_CONFIG_SOURCES) $(FUZZ_DIR)/libGestureCore.a
	$(FUZZ_SWIFTC) -wmo -emit-library -static -module-name GesturedConfig -emit-module \
	  -emit-module-path $(FUZZ_DIR)/GesturedConfig.swiftmodule -I $(FUZZ_DIR) $(FUZZ_C_MODULES) \
	  -o $@ $(FUZZ_CONFIG_SOURCES)

$(FUZZ_DIR)/fuzz-evemu: Tests/Fuzz/EvemuFuzz.swift
$(FUZZ_DIR)/fuzz-config: Tests/Fuzz/ConfigFuzz.swift
$(FUZZ_DIR)/fuzz-engine: Tests/Fuzz/EngineFuzz.swift
# The channel's codec is pure: its one file is compiled into the target.
$(FUZZ_DIR)/fuzz-channel: Tests/Fuzz/ChannelFuzz.swift Sources/GesturedRuntime/Channel/ChannelMessage.swift
$(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS)): $(FUZZ_SHARED) $(FUZZ_DIR)/libGesturedConfig.a
	$(FUZZ_SWIFTC) -I $(FUZZ_DIR) $(FUZZ_C_MODULES) $(filter Tests/Fuzz/%Fuzz.swift Sources/%.swift,$^) $(FUZZ_SHARED) -L $(FUZZ_DIR) \
	  -lGesturedConfig -lGestureCore -lyaml -levdev -o $@

fuzz-build: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@for target in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_DIR)/corpus-$$target; \
	  echo "fuzz: $$target for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz-$$target $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
	    $(FUZZ_DIR)/corpus-$$target Tests/Fuzz/Seeds/$$target 2>$(FUZZ_DIR)/fuzz-$$target.log \
	    || { tail -40 $(FUZZ_DIR)/fuzz-$$target.log; exit 1; }; \
	  grep '^stat::\(number_of_executed_units\|average_exec_per_sec\)' $(FUZZ_DIR)/fuzz-$$target.log; \
	done

fuzz-smoke: fuzz-build
	@for target in $(FUZZ_TARGETS); do \
	  if [ -n "$$(ls Tests/Fuzz/Crashers/$$target 2>/dev/null)" ]; then \
	    $(FUZZ_DIR)/fuzz-$$target $(FUZZ_RUN_FLAGS) Tests/Fuzz/Crashers/$$target/* \
	      2>$(FUZZ_DIR)/smoke-$$target.log || { tail -40 $(FUZZ_DIR)/smoke-$$target.log; exit 1; }; \
	  fi; \
	  rm -rf $(FUZZ_DIR)/smoke-corpus-$$target && mkdir -p $(FUZZ_DIR)/smoke-corpus-$$target; \
	  $(FUZZ_DIR)/fuzz-$$target $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
	    $(FUZZ_DIR)/smoke-corpus-$$target Tests/Fuzz/Seeds/$$target 2>$(FUZZ_DIR)/smoke-$$target.log \
	    || { tail -40 $(FUZZ_DIR)/smoke-$$target.log; exit 1; }; \
	  echo "fuzz-smoke: $$target: crashers replayed, $$(grep -o 'number_of_executed_units: *[0-9]*' \
	    $(FUZZ_DIR)/smoke-$$target.log | grep -o '[0-9]*$$') runs without a crash"; \
	done

# The figures measured without a VM: the core over each generated stream (gestured-bench,
# with the malloc-counting preload for allocations per frame; its instructions per raw
# event by callgrind, so gestured-bench keeps its symbols) and `gestured replay` of a
# generated 5 M-event recording (time and peak RSS by /usr/bin/time), for BENCHMARKS.md;
# `gestured check` at the config size cap and protocol A frames with 64 contacts, for
# docs/testing.md#benchmarks; the library's delivery with three views, a transform handler
# on each (touchgestures-bench: hops, allocations and CPU per frame). Measured here, never
# in unit tests.
BENCH_DIR := $(SCRATCH)/bench
MALLOC_COUNT := $(BENCH_DIR)/malloc-count.so
$(MALLOC_COUNT): Tests/Benchmarks/malloc-count.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Werror -shared -fPIC -o $@ $<

bench: build $(MALLOC_COUNT)
	@command -v valgrind >/dev/null || { echo "bench: installing valgrind"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y valgrind; }
	$(BUILD) -c release $(RELEASE_LINK_FLAGS) --product gestured-bench
	Tests/Benchmarks/bench.sh $(GESTURED) $(SCRATCH)/release/gestured-bench $(abspath $(MALLOC_COUNT)) $(BENCH_DIR)
	Tests/Benchmarks/config-and-matching.sh $(GESTURED) $(BENCH_DIR)/config-and-matching
	$(BUILD) -c release $(RELEASE_LINK_FLAGS) --product touchgestures-bench
	@echo "== library: touchgestures-bench (LD_PRELOAD=$(MALLOC_COUNT)); goals <= 1 hop and 0 allocations per frame"
	LD_PRELOAD=$(abspath $(MALLOC_COUNT)) $(SCRATCH)/release/touchgestures-bench 10

# The live path (BENCHMARKS.md): one VM boot, gestured (the static `make build`) and Debian's
# lisgd alternately on one virtual panel, CPU ticks of each over the same stream of swipes.
bench-vm: build
	@command -v lisgd >/dev/null && command -v strace >/dev/null || { echo "bench-vm: installing lisgd and strace"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y lisgd strace; }
	$(SUDO) Tests/VM/setup.sh
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured-touch
	rm -rf $(BENCH_DIR)/vm && mkdir -p $(BENCH_DIR)/vm
	$(CC) -O2 -Wall -Werror -o $(BENCH_DIR)/vm/floor-reader Tests/Benchmarks/floor-reader.c
	$(CC) -O2 -Wall -Werror -o $(BENCH_DIR)/vm/kernel-costs Tests/Benchmarks/kernel-costs.c
	$(CC) -O2 -Wall -Werror -I Sources/CGesturedShim/include $$(pkg-config --cflags libevdev) \
	  -o $(BENCH_DIR)/vm/design-floor Tests/Benchmarks/design-floor.c \
	  Sources/CGesturedShim/shim.c Sources/CGesturedShim/credentials.c $$(pkg-config --libs libevdev)
	Tests/VM/run-in-vm.sh --rwdir $(abspath $(BENCH_DIR)/vm) -- env GESTURED=$(abspath $(GESTURED)) \
	  GESTURED_TOUCH=$(abspath $(SCRATCH)/release/gestured-touch) \
	  FLOOR_READER=$(abspath $(BENCH_DIR)/vm/floor-reader) KERNEL_COSTS=$(abspath $(BENCH_DIR)/vm/kernel-costs) \
	  DESIGN_FLOOR=$(abspath $(BENCH_DIR)/vm/design-floor) \
	  Tests/Benchmarks/live-in-vm.sh $(abspath $(BENCH_DIR)/vm) 5
	@cat $(BENCH_DIR)/vm/live-summary.txt $(BENCH_DIR)/vm/keys-summary.txt $(BENCH_DIR)/vm/replay-in-vm.txt $(BENCH_DIR)/vm/strace-gestured.txt $(BENCH_DIR)/vm/idle.txt $(BENCH_DIR)/vm/startup.txt $(BENCH_DIR)/vm/rss.txt $(BENCH_DIR)/vm/latency-summary.txt $(BENCH_DIR)/vm/kernel-costs.txt

# The instructions behind those ticks (BENCHMARKS.md): gestured (release, not stripped, for
# function names) and lisgd under callgrind in one VM boot, over a slower stream of swipes.
PROFILE_SCRATCH := $(SCRATCH)-profile
bench-vm-profile: build
	@command -v lisgd >/dev/null && command -v valgrind >/dev/null || { echo "bench-vm-profile: installing lisgd and valgrind"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y lisgd valgrind; }
	$(SUDO) Tests/VM/setup.sh
	$(SWIFT) build --scratch-path $(PROFILE_SCRATCH) $(SWIFT_FLAGS) -c release --static-swift-stdlib \
	  --disable-local-rpath --product gestured
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured-touch
	rm -rf $(BENCH_DIR)/vm-profile && mkdir -p $(BENCH_DIR)/vm-profile
	# Symbols kept, debug information dropped: Debian's valgrind cannot read the DWARF 5 the
	# toolchain writes.
	objcopy --strip-debug $(PROFILE_SCRATCH)/release/gestured $(BENCH_DIR)/vm-profile/gestured
	Tests/VM/run-in-vm.sh --rwdir $(abspath $(BENCH_DIR)/vm-profile) -- \
	  env GESTURED=$(abspath $(BENCH_DIR)/vm-profile/gestured) \
	  GESTURED_TOUCH=$(abspath $(SCRATCH)/release/gestured-touch) \
	  Tests/Benchmarks/profile-in-vm.sh $(abspath $(BENCH_DIR)/vm-profile)

# Where the live path's CPU goes (BENCHMARKS.md, row "live profile"): perf's samples of both
# processes, user space and kernel, over bench-vm's stream with a key and with a command.
# The release link of `make build`, its symbols kept for function names.
PERF_SCRATCH := $(SCRATCH)-perf
bench-vm-perf: deps $(STATIC_CXX_DIR)/libstdc++.a
	@command -v perf >/dev/null || { echo "bench-vm-perf: installing linux-perf"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y linux-perf; }
	$(SUDO) Tests/VM/setup.sh
	$(SWIFT) build --scratch-path $(PERF_SCRATCH) $(SWIFT_FLAGS) -c release $(RELEASE_LINK_FLAGS) \
	  -Xlinker --strip-debug --product gestured
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured-touch
	rm -rf $(BENCH_DIR)/vm-perf && mkdir -p $(BENCH_DIR)/vm-perf
	Tests/VM/run-in-vm.sh --rwdir $(abspath $(BENCH_DIR)/vm-perf) -- \
	  env GESTURED=$(abspath $(PERF_SCRATCH)/release/gestured) \
	  GESTURED_TOUCH=$(abspath $(SCRATCH)/release/gestured-touch) \
	  Tests/Benchmarks/perf-in-vm.sh $(abspath $(BENCH_DIR)/vm-perf)
	@cat $(BENCH_DIR)/vm-perf/perf-summary.txt

# What one swipe's wake-ups cost (BENCHMARKS.md, rows "wake-ups" and "placement"): the
# `make build` binary and lisgd traced (context switches, system calls) in one VM boot.
bench-vm-wakeups: build
	@command -v lisgd >/dev/null || { echo "bench-vm-wakeups: installing lisgd"; \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y lisgd; }
	$(SUDO) Tests/VM/setup.sh
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured-touch
	rm -rf $(BENCH_DIR)/vm-wakeups && mkdir -p $(BENCH_DIR)/vm-wakeups
	Tests/VM/run-in-vm.sh --rwdir $(abspath $(BENCH_DIR)/vm-wakeups) -- env GESTURED=$(abspath $(GESTURED)) \
	  GESTURED_TOUCH=$(abspath $(SCRATCH)/release/gestured-touch) \
	  Tests/Benchmarks/wakeups-in-vm.sh $(abspath $(BENCH_DIR)/vm-wakeups)
	@cat $(BENCH_DIR)/vm-wakeups/wakeups.txt $(BENCH_DIR)/vm-wakeups/placement.txt

# LINK_ORDER again (BENCHMARKS.md, row "RSS"), after code changed what start-up or the loop
# runs: gestured (release, the same link, its Swift code instrumented so that each function
# reports its first call: Tests/Benchmarks/link-order-coverage.c) in one VM boot as root,
# its two processes, with two panels: start-up, then swipes and taps with their commands and
# keys; link-order.py keeps the functions that have a section of their own, by lld's map of
# that link, and puts first those a swipe runs by make bench-vm-profile's count (which also
# names the Swift runtime's and standard library's).
ORDER_SCRATCH := $(SCRATCH)-link-order
ORDER_DIR := $(BENCH_DIR)/link-order
ORDER_COVERAGE := -Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer \
  -Xswiftc -Xfrontend -Xswiftc -sanitize-coverage=func,trace-pc-guard \
  -Xlinker $(abspath $(ORDER_SCRATCH))/link-order-coverage.o

link-order: deps $(STATIC_CXX_DIR)/libstdc++.a bench-vm-profile
	$(SUDO) Tests/VM/setup.sh
	rm -rf $(ORDER_DIR) && mkdir -p $(ORDER_DIR) $(ORDER_SCRATCH)
	cc -O2 -Wall -Werror -fPIC -c Tests/Benchmarks/link-order-coverage.c -o $(ORDER_SCRATCH)/link-order-coverage.o
	@# Linked every time: the map is written only by a link.
	rm -f $(ORDER_SCRATCH)/release/gestured
	$(SWIFT) build --scratch-path $(ORDER_SCRATCH) $(SWIFT_FLAGS) -c release $(RELEASE_LINK_FLAGS) \
	  $(ORDER_COVERAGE) -Xlinker --strip-debug -Xlinker --no-demangle \
	  -Xlinker -Map=$(abspath $(ORDER_DIR))/gestured.map --product gestured
	$(BUILD) -c release $(RELEASE_FLAGS) --product gestured-touch
	Tests/VM/run-in-vm.sh --rwdir $(abspath $(ORDER_DIR)) -- \
	  env GESTURED=$(abspath $(ORDER_SCRATCH))/release/gestured \
	  GESTURED_TOUCH=$(abspath $(SCRATCH)/release/gestured-touch) \
	  Tests/Benchmarks/link-order-in-vm.sh $(abspath $(ORDER_DIR))
	nm -n --defined-only $(ORDER_SCRATCH)/release/gestured > $(ORDER_DIR)/gestured.nm
	Tests/Benchmarks/link-order.py $(ORDER_DIR)/gestured.map $(ORDER_DIR)/gestured.nm \
	  $(ORDER_DIR)/gestured.log $(BENCH_DIR)/vm-profile/callgrind.gestured $(LINK_ORDER)

format:
	$(SWIFT) format -i -r Sources Tests Package.swift examples

# --strict: a style finding fails the target (and CI), not only prints a warning.
lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift examples

clean:
	rm -rf $(SCRATCH)
