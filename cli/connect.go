package cli

import (
	"net/http"

	"github.com/vmplane/vmplane/cli/remotes"
)

// Connect is what the server's own commands that talk to a running server (vmplane
// backup) use to log in as the verbs do: the base URL of the server that url, remote
// or the current remote names, and an HTTP client that signs every request with token
// (VMPLANE_TOKEN when empty) or else the saved login of that remote, renewed as it
// runs out. It fails when there is neither, saying how to log in.
func Connect(env Env, remote, url, token string) (string, *http.Client, error) {
	a := &app{env: env, remote: remote, url: url, token: token}
	return a.connect()
}

// Bearer is a transport that sends every request through next with token as its
// bearer token: how --token (and VMPLANE_TOKEN) sign requests, for callers that bring a
// transport of their own (vmplane backup's, with its time limits).
func Bearer(token string, next http.RoundTripper) http.RoundTripper {
	return remotes.Bearer(token, next)
}
