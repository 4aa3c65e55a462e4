//go:build !unix

package remotes

import "os"

// lockFileExclusive does nothing where flock is missing: two processes refreshing the
// same login at the same moment may then end it, and the user logs in again.
func lockFileExclusive(*os.File) error { return nil }
