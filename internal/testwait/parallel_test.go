package testwait

import (
	"flag"
	"testing"
)

// TestParallel: Parallel sets -parallel when the command line did not, and leaves the
// command line's value when it did.
func TestParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { _ = flag.Set("test.parallel", before) })
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	Parallel(7)
	switch got := f.Value.String(); {
	case given && got != before:
		t.Fatalf("-parallel %s on the command line became %s", before, got)
	case !given && got != "7":
		t.Fatalf("-parallel is %s; want 7", got)
	}
}
