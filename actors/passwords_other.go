//go:build !linux

package actors

// lowerThreadPriority does nothing here: elsewhere than on Linux a nice value applies to
// the whole process, not to one thread, so the hashing runs at normal priority and is
// only bounded by the number of workers.
func lowerThreadPriority() error { return nil }

// onMainThread reports false: with no priority to lower, a worker may as well keep the
// main thread.
func onMainThread() bool { return false }
