// Package limiter holds the rate limits' token buckets in sharded limiter actors (the
// design asks for a token-bucket limiter actor): the global and authentication buckets
// per client address, and the per-e-mail login backoff.
package limiter
