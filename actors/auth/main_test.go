package auth

import (
	"fmt"
	"os"
	"testing"

	"github.com/vmplane/vmplane/actors/kit/kittest"
)

// TestMain lets the test binary be a password hashing process (hashWorkerCommand), and
// otherwise fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) {
	if os.Getenv("VMPLANE_TEST_HASH_WORKER") == "1" {
		if err := ServeHashWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	kittest.Main(m)
}

// hashWorkerCommand starts this test binary as a hashing process.
func hashWorkerCommand() []string {
	// GORACE: a race-enabled binary otherwise waits a second before it exits.
	return []string{"/usr/bin/env", "VMPLANE_TEST_HASH_WORKER=1", "GORACE=atexit_sleep_ms=0", os.Args[0]}
}
