// Package packaging holds what vmplane ships besides its binary (the systemd unit
// vmplane.service) and the tests that check those files; it has no Go code of its own.
package packaging
