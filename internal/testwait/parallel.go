package testwait

import (
	"flag"
	"strconv"
)

// Parallel sets how many of the package's parallel tests run at once to n, unless the
// command line set it (-parallel). A package's TestMain calls it, before the tests
// run, when its tests mostly wait (for a TTL to pass, an outage to be noticed, another
// process), not compute: go test's default of one test per core leaves those cores
// idle while each test waits, and on a two-core machine such a package took the sum of
// its tests' waits. Tests that compute gain nothing from it and keep the default.
func Parallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		// The flag is the testing package's: there whenever a test binary runs.
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}
