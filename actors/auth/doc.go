// Package auth owns users and their logins: user records (one entity each), sessions
// as rotating refresh-token families with reuse detection, the in-memory session table
// that Authorize checks on every request, password hashing on workers and child
// processes off the mailboxes, the first admin and its first-boot password, and the
// idempotency records of Idempotency-Key retries. A tenant is checked through the
// injected TenantExists: the tenants live above it.
package auth
