// Package addresses holds the IP address pools vmplane hands machines their addresses
// from, and the allocation records that say which machine holds which address. Each
// address (or, in an IPv6 pool, each routed prefix) is one record, written by a
// conditional create-if-absent in the batch that creates its holder, so that no two
// machines are ever given the same address, whichever member of a cluster writes.
package addresses
