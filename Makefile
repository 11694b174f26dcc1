# The two commands a newcomer needs: `make demo` (symbolicate a sample report) and `make test`.
# Both install the Debian packages they need first (scripts/install-deps.sh, idempotent).
# `make release` links the Swift runtime in (--static-swift-stdlib): that halves start-up CPU
# (Benchmarks/startup.sh), and the binary needs no Swift toolchain where it runs.

SWIFT ?= swift
BIN = .build/release/symbolicate

.PHONY: deps build release demo test webpage samples bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --static-swift-stdlib

demo: release
	$(BIN) Samples/reports/HoldApp-ios-arm64-dwarf5.crash Samples/build/ios-arm64-dwarf5

test: deps
	$(SWIFT) test

# The web page in headless Chromium (1280x900 and 390x844, light and dark); skipped without chromium.
webpage: build
	scripts/webpage-check.sh .build/debug/symbolicate webpage-check

samples:
	Samples/generate.sh

bench: release
	Benchmarks/run.sh

clean:
	rm -rf .build
