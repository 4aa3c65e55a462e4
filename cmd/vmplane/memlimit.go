package main

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"go.uber.org/zap"
)

// The Go runtime's soft memory limit. GOMEMLIMIT, when set, is the runtime's own and
// wins. Without it, a server in a cgroup with a memory limit (a container, systemd's
// MemoryMax=) gets a soft limit of 75 % of it: the collector then works harder as the
// heap nears the limit instead of letting the process grow to twice its live heap
// (GOGC's default headroom) and be killed. A million machines' first sync keeps
// about 1.3 GB live and reached 3.3 GB of RSS without a limit (BENCHMARKS.md, issue 33).

// memLimitShare is the share of the cgroup's limit given to the Go heap; the rest is
// for what the runtime does not count, mostly Badger's tables mapped from the page
// cache: 0.3-0.6 GB of a million machines' RSS. With a soft limit of 1800 MiB (about
// the 90 % of 2 GiB this share was before) the process peaked at 2055-2274 MiB in six
// runs at a million; with 1500 MiB at 1722-1988 MiB (BENCHMARKS.md, issue 33).
const memLimitShare = 0.75

// cgroupMemoryFiles are the cgroup v2 and v1 files holding the process's memory limit.
var cgroupMemoryFiles = []string{
	"/sys/fs/cgroup/memory.max",
	"/sys/fs/cgroup/memory/memory.limit_in_bytes",
}

// softMemoryLimit returns the soft limit to set (0: none) and where it came from:
// none when GOMEMLIMIT is set or no cgroup limit is found. readFile reads a cgroup file.
func softMemoryLimit(getenv func(string) string, readFile func(string) ([]byte, error)) (int64, string) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, ""
	}
	for _, f := range cgroupMemoryFiles {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseInt(s, 10, 64)
		// "max" (v2) or a page-rounded MaxInt64 (v1) is no limit.
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			return 0, ""
		}
		return int64(float64(n) * memLimitShare), f
	}
	return 0, ""
}

// applySoftMemoryLimit sets the runtime's soft memory limit from the cgroup's, if any.
func applySoftMemoryLimit(log *zap.Logger) {
	limit, from := softMemoryLimit(os.Getenv, os.ReadFile)
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit)
	log.Info("soft memory limit set from the cgroup's", zap.Int64("bytes", limit), zap.String("cgroup_file", from))
}
