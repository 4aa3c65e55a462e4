// Package testserver starts a real vmplane server in-process, on an ephemeral loopback
// port over a Badger store in a directory the caller owns, with a simulated cluster: the
// server the generated client is checked against.
package testserver

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/vmplane/vmplane/app/apptest"
)

// Credentials of the first operator (admin) of a test server.
const (
	AdminEmail    = apptest.AdminEmail
	AdminPassword = apptest.AdminPassword
)

// Server is a running vmplane server.
type Server struct {
	*apptest.Server
}

// Start starts a server over a store in dir with a small, fast simulated cluster and no
// rate limits (a test's requests come quickly from one address).
func Start(dir string) (*Server, error) {
	srv, err := apptest.Start(dir)
	if err != nil {
		return nil, fmt.Errorf("start vmplane: %w", err)
	}
	return &Server{srv}, nil
}

// Document fetches the OpenAPI document the server serves at GET /api/openapi.json.
func (s *Server) Document() ([]byte, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	res, err := c.Get(s.Base + "/api/openapi.json")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/openapi.json: %s: %s", res.Status, body)
	}
	return body, nil
}
