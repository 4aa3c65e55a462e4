package main

import (
	"context"
	"net"
	"net/http"
	"testing"
)

// TestHealthAnswersOnWildcard: the watchdog's check reaches a server that listens on
// every address (VMPLANE_ADDR=:8080, the default) through loopback, whatever status
// it answers, and fails when nothing listens.
func TestHealthAnswersOnWildcard(t *testing.T) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/health" {
			t.Errorf("checked %s; want /api/health", r.URL.Path)
		}
		w.WriteHeader(http.StatusServiceUnavailable) // degraded is still alive
	})}
	go srv.Serve(ln)
	addr := ln.Addr().String()
	if err := healthAnswers(addr)(context.Background()); err != nil {
		t.Fatalf("check of %s: %v", addr, err)
	}
	srv.Close()
	if err := healthAnswers(addr)(context.Background()); err == nil {
		t.Fatalf("check of %s with nothing listening: got nil; want an error", addr)
	}
}
