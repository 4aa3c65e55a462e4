//go:build !linux

package auth

// lowerThreadPriority does nothing here: elsewhere than on Linux a hashing process runs
// at normal priority and is only bounded by the number of workers.
func lowerThreadPriority() error { return nil }
