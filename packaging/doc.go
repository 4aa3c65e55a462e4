// Package packaging holds what vmplane ships besides its binary (the systemd unit
// vmplane.service, the default configuration vmplane.toml, the Debian package built by
// nfpm from nfpm.yaml with the maintainer scripts and copyright under deb/, the rpm's
// scripts under rpm/) and the
// tests that check those files; it has no Go code of its own. packaging/nfpm is a
// separate Go module that only pins the nfpm tool.
package packaging
