# vmplane: the two commands are `make run` and `make test`.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/vmplane/vmplane/app.Version=$(VERSION)

.PHONY: run build test lint bench fuzz faults client clean

## run: serve the API on :8080 with the embedded store in ./data and the simulated cluster
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/vmplane serve

## build: build ./bin/vmplane
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/vmplane ./cmd/vmplane

## test: vet, then every test (fuzz seed corpora included) with the race detector; then
## the generated API client of clientcheck/ (its own module) against a real server
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 15m ./...
	cd clientcheck && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 5m ./...

## client: fetch /api/openapi.json from a real server into clientcheck/openapi.json and
## regenerate the client in clientcheck/vmclient from it (oapi-codegen, pinned in clientcheck/go.mod)
client:
	cd clientcheck && $(GO) run ./internal/specdump openapi.json && $(GO) generate ./vmclient

## lint: formatting and vet
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

## bench: every Go benchmark, side by side with its baseline (-p 1: one package at a
## time, or two packages share the two cores and their numbers are not comparable)
bench:
	$(GO) test -p 1 -run '^$$' -bench . -benchmem ./...

## faults: the process-level fault tests at length: ten kill -9 trials under write load
## (no acknowledged write lost, none applied twice), signals, shutdown deadlines, full disks
faults:
	VMPLANE_CRASH_TRIALS=10 $(GO) test -race -count=1 -timeout 15m -run 'Crash|Signal|SIGTERM|Shutdown|Disk|FailedSync' -v ./app ./cmd/vmplane ./persistence

## fuzz: fuzz the request path for a minute
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzRequest -fuzztime 60s ./httpedge

clean:
	rm -rf bin data
