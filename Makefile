# ctx: make demo runs the main job on the bundled examples; make test runs
# every test. Both work on a fresh machine with Go and nothing else.

GO      ?= go
BIN     ?= bin
# ctx is pure Go: built without cgo, its programs are static and small in
# memory. (With cgo, the sandbox's dependency libcap/psx links the C
# library into every program, about 10 MiB more resident set each, which
# the 64 MiB bounds of the memory tests do not leave.)
export CGO_ENABLED ?= 0
GOFILES  = $(shell git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')

.PHONY: all build install test vet fmt-check unit interop demo bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# The verbs, and ctx-tool-example: the examples' runs call the tool
# "example", which replay runs through it.
install:
	$(GO) install ./cmd/... ./examples/ctx-tool-example

# Every test: vet, formatting, unit tests and the testscript suite.
test: vet fmt-check unit

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# go test -json through internal/testprogress: a line per package, per
# testscript and per slow test as each ends, the reason of each skip, and
# the output of any that fails, so a long run is never silent. A package
# that outlives TEST_TIMEOUT is stopped by go test and named in one line
# with the tests still running (the goroutine dump goes to
# $(BIN)/timeout-PKG.txt). Its exit status is the suite's.
TEST_TIMEOUT ?= 30m
unit:
	$(GO) build -o $(BIN)/testprogress ./internal/testprogress
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -json ./... | $(BIN)/testprogress -dumps $(BIN)

# The checks against real third-party programs (cosign ..., and the coding
# agents, whose runs take seconds each and so run here only:
# CTX_RUN_AGENTS), each a TestInterop* test; here a missing program fails
# instead of skipping.
interop:
	CTX_REQUIRE_INTEROP=1 CTX_RUN_AGENTS=1 $(GO) test -count=1 -timeout 30m -run '^TestInterop' ./...

demo: build
	./examples/demo.sh $(BIN)

bench: build
	$(GO) run ./bench -bin $(BIN) -out docs/PERFORMANCE.md

# Run every fuzz target for FUZZTIME each (default 30s).
FUZZTIME ?= 30s
fuzz:
	./bench/fuzz.sh $(FUZZTIME)

clean:
	rm -rf $(BIN)
