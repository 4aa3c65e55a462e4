// Package client is the Go client of the vmplane API: typed calls for tenants, users,
// templates, machines, tasks and firewall rules, over one keep-alive connection pool.
//
// It takes care of what every API client otherwise re-learns:
//
//   - Login: WithCredentials logs in on first use, renews the token before it expires
//     and once more on a 401, one renewal at a time however many goroutines call.
//   - Idempotency: every POST carries an Idempotency-Key (random, or the one given with
//     WithIdempotencyKey), and its retries carry the same, so a retried request is
//     never applied twice.
//   - Retries: network errors, 503 and 429 are retried with backoff, honouring
//     Retry-After and RateLimit-Reset, within the budget of WithRetryBudget; other 4xx
//     answers are never retried. WithBaseURLs adds cluster members to fail over to.
//   - Errors: every error answer is an *Error; compare it with errors.Is against the
//     sentinels (ErrNotFound, ErrQuotaExceeded, ...).
//   - Lists: Machines, Tenants, ... are iterators that follow next_cursor page after
//     page; MachinesPage, TenantsPage, ... read one page and give its cursor.
//   - Slow work answers a *Task; WaitTask waits for its end (told by the event stream,
//     or by reading the task again) and turns a failed task into an error.
//   - Events yields the server-sent event stream and resumes it with Last-Event-ID
//     after a dropped connection.
//
// The package depends on the standard library only: it imports none of the server's
// packages.
package client
