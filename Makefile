# vmplane: the two commands are `make run` and `make test`.
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
# The commit's date, not the clock's: building the same commit twice gives the same binary.
DATE ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo unknown)
# The commit's time as seconds since 1970, for the packages: nfpm stamps every file and
# the package itself with SOURCE_DATE_EPOCH, so building the same commit twice gives the
# same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
LDFLAGS := -s -w -X github.com/vmplane/vmplane/app.Version=$(VERSION) \
	-X github.com/vmplane/vmplane/app.Commit=$(COMMIT) -X github.com/vmplane/vmplane/app.Date=$(DATE)
# The previous release, which `make test-upgrade` rolls a cluster from: a commit (or a
# tag) of this repository. Move it forward at each release, to that release's commit.
UPGRADE_FROM ?= 641ba8d
# dist/SHA256SUMS: the checksum of every file in dist/, binaries and packages alike,
# written again by each target that adds files there.
SUMS := cd dist && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%P\n' | LC_ALL=C sort | xargs -r sha256sum > SHA256SUMS
# The platforms of `make dist`, as GOOS/GOARCH.
DIST_PLATFORMS := linux/amd64 linux/arm64
# VERSION as a Debian version (it must start with a digit, and `-` is the revision's
# separator): a leading v goes; a commit without a tag is 0.0~git<hash>; a pre-release
# suffix (-rc1) sorts before its release (~rc1); the rest of `git describe`
# (-3-gabc1234-dirty) sorts after it (+3.gabc1234.dirty).
DEB_VERSION ?= $(shell echo '$(VERSION)' | sed -E -e 's/^v//' -e '/^[0-9]+\./!s/^/0.0~git/' \
	-e 's/-(rc|alpha|beta|pre)/~\1/' -e 's/-/+/' -e 's/-/./g')

.PHONY: run build ui dist deb rpm test test-ui screenshots lint bench fuzz faults test-cluster test-upgrade upgrade-from client clean

## run: serve the API on :8080 with the embedded store in ./data and the simulated cluster
run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/vmplane serve

## build: build ./bin/vmplane
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/vmplane ./cmd/vmplane

## dist: static release binaries dist/vmplane-linux-amd64 and dist/vmplane-linux-arm64
## (CGO_ENABLED=0, -trimpath, version, commit and date stamped), dist/third-party-notices
## (the licence and notice files of every module they are built from: tools/notices)
## and dist/SHA256SUMS;
## fails when a binary is not static (tools/elfstatic reads each one's ELF headers)
dist:
	rm -rf dist && mkdir -p dist
	set -e; for p in $(DIST_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "building dist/vmplane-$$os-$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" \
			-o dist/vmplane-$$os-$$arch ./cmd/vmplane; \
	done
	$(GO) run ./tools/elfstatic dist/vmplane-*
	$(GO) run ./tools/notices ./cmd/vmplane dist/third-party-notices
	$(SUMS)

## deb: dist/vmplane_DEB_VERSION_ARCH.deb for each binary of `make dist` (run it first),
## built by nfpm from packaging/nfpm.yaml; nfpm is pinned by packaging/nfpm/go.mod
## (its own module, so its dependencies stay out of ours) and built by `go tool`
## rpm: the same as dist/vmplane-DEB_VERSION-1.ARCH.rpm (x86_64, aarch64), with the rpm
## overrides of nfpm.yaml (packaging/rpm/ maintainer scripts); DEB_VERSION is a valid
## rpm version too. Both take nfpm's conventional file names (--target dist/).
## Both are reproducible (every time in them is the commit's, SOURCE_DATE_EPOCH) and
## rewrite dist/SHA256SUMS to cover them.
deb rpm:
	set -e; nfpm=$$($(GO) -C packaging/nfpm tool -n nfpm); \
	for p in $(DIST_PLATFORMS); do \
		arch=$${p#*/}; \
		for f in dist/vmplane-linux-$$arch dist/third-party-notices; do \
			test -f $$f || { echo "$$f missing: run make dist first" >&2; exit 1; }; \
		done; \
		ARCH=$$arch DEB_VERSION='$(DEB_VERSION)' SOURCE_DATE_EPOCH='$(SOURCE_DATE_EPOCH)' \
			$$nfpm package --config packaging/nfpm.yaml --packager $@ --target dist/; \
	done
	$(SUMS)

## test: vet, then every test (fuzz seed corpora included) with the race detector, the
## tests of the actors' packages that run on wiretest.FromEnv again with every request
## crossing members (VMPLANE_TEST_WIRE=1; the other packages' tests would only repeat
## themselves); then the generated API client of clientcheck/ (its own module) against
## a real server. vet builds with -trimpath, as docs' README test builds its server in a
## copy of the checkout: that build then reuses vet's compiles instead of compiling the
## server again beside the race tests (minutes on two cores, past the test's bound)
test:
	$(GO) vet -trimpath ./...
	$(GO) test -race -count=1 -timeout 15m ./...
	VMPLANE_TEST_WIRE=1 $(GO) test -race -count=1 -timeout 5m \
		$$(grep -rlE --include='*.go' 'wiretest\.FromEnv' actors | xargs -n1 dirname | sort -u | sed 's|^|./|')
	cd clientcheck && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 5m ./...

## ui: build the web console (ui/src) into ui/dist and ui/manifest.json, which are
## committed: npm ci fetches the packages ui/package-lock.json pins into ui/node_modules
## (no install scripts run), then esbuild, pinned in go.mod and run by `go tool`, bundles
## them (tools/uibuild); the ui package's tests fail when the build is stale
ui:
	cd ui && npm ci --ignore-scripts --no-audit --no-fund
	$(GO) run ./tools/uibuild

## test-ui: the web console's browser tests (ui/uitest) with their longer runs, which
## `make test` leaves out (VMPLANE_UI_LONG=1: every page at a phone's 360 px in the dark
## theme, no wider than the screen and without a serious axe-core violation); needs chromium
test-ui:
	VMPLANE_UI_LONG=1 VMPLANE_REQUIRE_BROWSER=1 $(GO) test -race -count=1 -timeout 10m ./ui/...

## screenshots: docs/screenshots/*.png, the console's main pages as the browser tests
## walk them, 1280 px wide (name.png) and at a phone's 360 px (name-360.png); needs chromium
screenshots:
	mkdir -p docs/screenshots
	VMPLANE_UI_SHOTS=$(CURDIR)/docs/screenshots VMPLANE_REQUIRE_BROWSER=1 $(GO) test -count=1 -timeout 10m ./ui/uitest

## client: fetch /api/openapi.json from a real server into clientcheck/openapi.json and
## regenerate the client in clientcheck/vmclient from it (oapi-codegen, pinned in clientcheck/go.mod)
client:
	cd clientcheck && $(GO) run ./internal/specdump openapi.json && $(GO) generate ./vmclient

## lint: formatting, vet, staticcheck, dead code (tools/lint/deadcode.sh: no function
## that nothing reaches, no program code that only tests reach, exceptions in
## tools/lint/deadcode.allow) and package size (tools/lint/pkgsize.sh: at most 4,000
## lines, exceptions in tools/lint/pkgsize.allow) and the repository's paths
## (tools/lint/paths.sh: no tracked file name a shell trips on, no reference to notes
## outside the repository); staticcheck's checks are its defaults and the doc comment
## ones (ST1020-ST1022: a comment starts with what it documents), in staticcheck.conf;
## staticcheck and deadcode are pinned
## by tools/lint/go.mod (their own module, so their dependencies stay out of ours) and
## built by `go tool`
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$$($(GO) -C tools/lint tool -n staticcheck) ./...
	tools/lint/deadcode.sh
	tools/lint/pkgsize.sh
	tools/lint/paths.sh

## bench: every Go benchmark, side by side with its baseline (-p 1: one package at a
## time, or two packages share the two cores and their numbers are not comparable)
bench:
	$(GO) test -p 1 -run '^$$' -bench . -benchmem ./...

## faults: the process-level fault tests at length: ten kill -9 trials under write load
## (no acknowledged write lost, none applied twice), signals, shutdown deadlines, full disks
faults:
	VMPLANE_CRASH_TRIALS=10 $(GO) test -race -count=1 -timeout 15m -run 'Crash|Signal|SIGTERM|Shutdown|Disk|FailedSync' -v ./app ./cmd/vmplane ./persistence

## test-cluster: the cluster's fault trials at length: three member processes on an
## embedded etcd, ten trials that kill -9 or pause (SIGSTOP past the lease) the member
## holding a tenant under write load, with a schedule running through them; prints the
## failover and restart figures (BENCHMARKS.md)
test-cluster:
	VMPLANE_CLUSTER_TRIALS=10 $(GO) test -count=1 -timeout 15m -run 'TestClusterKillTrials' -v ./app

## test-upgrade: the mixed-version cluster test: builds UPGRADE_FROM (the previous release,
## checked out with git worktree) and this tree, runs members of both on one embedded etcd
## under load, replaces the old members one at a time, and checks that every request was
## answered (no 5xx) and every acknowledged write is there after the roll (docs/operating.md)
test-upgrade:
	VMPLANE_UPGRADE_FROM=$(UPGRADE_FROM) $(GO) test -race -count=1 -timeout 20m -run '^TestUpgradeMixedVersionCluster$$' -v ./app

## upgrade-from: print UPGRADE_FROM (.ci/run checks that the clone holds it)
upgrade-from:
	@echo $(UPGRADE_FROM)

## fuzz: fuzz the request path for a minute
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzRequest -fuzztime 60s ./httpedge

clean:
	rm -rf bin data dist
