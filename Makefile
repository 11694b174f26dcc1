# The two commands a newcomer needs: `make demo` (symbolicate a sample report) and `make test`.
# Both install the Debian packages they need first (scripts/install-deps.sh, idempotent).
# `make release` links the Swift runtime in (--static-swift-stdlib): that halves start-up CPU
# (Benchmarks/startup.sh), and the binary needs no Swift toolchain where it runs.

SWIFT ?= swift
FUZZ_SECONDS ?= 60
BIN = .build/release/symbolicate

.PHONY: deps build release demo test test-under-load lint webpage webpage-source samples bench clean fuzz asan tsan

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The product only: the test-support target imports Swift Testing, which release builds lack.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product symbolicate

demo: release
	$(BIN) Samples/reports/HoldApp-ios-arm64-dwarf5.crash Samples/build/ios-arm64-dwarf5

# PyPI tools some tests use (moto as an S3 stand-in) go into .build/test-venv when PyPI can be
# reached; without it those tests are reported as skipped. lld-14 links the watchOS (arm64_32)
# build that WatchOSTests compile at test time.
test: deps
	@scripts/install-deps.sh lld-14
	@scripts/test-venv.sh .build/test-venv
	PATH="$(CURDIR)/.build/test-venv/bin:$$PATH" $(SWIFT) test

# The suite on one CPU with stress-ng busy beside it, three runs in a row (scripts/test-under-load.sh):
# tests that wait for time instead of events fail here. Not in CI: it takes several times as long.
test-under-load: deps
	@scripts/install-deps.sh lld-14 stress-ng
	@scripts/test-venv.sh .build/test-venv
	PATH="$(CURDIR)/.build/test-venv/bin:$$PATH" scripts/test-under-load.sh

# swift-format (with the toolchain) under the repository's .swift-format: Sources, Tests, Fuzz,
# Benchmarks. `swift format format -i -r Sources Tests` fixes most findings. Then no shared state
# behind Synchronization's Mutex, whose contended hand-over ThreadSanitizer cannot see: use Locked.
lint:
	$(SWIFT) format lint --strict -r Sources Tests Fuzz/Sources Benchmarks/LookupBench
	@! grep -rn --include='*.swift' -E '\bMutex(<|\()' Sources \
	  || { echo "lint: use Locked (Sources/Model/Locked.swift), not Synchronization's Mutex" >&2; exit 1; }
	@scripts/lint-unchecked.sh

# The web page in headless Chromium (1280x900 and 390x844, light and dark); skipped without chromium.
webpage: build
	scripts/webpage-check.sh .build/debug/symbolicate webpage-check

# The web page's files made into Sources/Server/WebPageDocument.swift (run after editing them).
webpage-source:
	$(SWIFT) run embed-web-page Sources/Server/WebPage Sources/Server/WebPageDocument.swift

samples:
	Samples/generate.sh

bench: release
	Benchmarks/run.sh

# Fuzz targets (Fuzz/README.md): each runs FUZZ_SECONDS; a finding fails with its reproducer's path.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# The test suite under AddressSanitizer, the server and batch suites under ThreadSanitizer,
# each in a build folder of its own (.build/asan, .build/tsan).
asan: deps
	scripts/sanitize.sh address

tsan: deps
	scripts/sanitize.sh thread --filter 'ServerTests|BatchTests'

clean:
	rm -rf .build
