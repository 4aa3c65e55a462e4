package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/sdnotify"
)

// startWatchdog pings systemd's watchdog (when the unit sets WatchdogSec) for as long
// as the API answers GET /api/health on addr, whatever its status: an answer says the
// listener, the edge and the scheduler work, which a bare timer would not. The
// returned function stops it; the shutdown calls it, since systemd does not watch a
// service that is stopping.
func startWatchdog(n *sdnotify.Notifier, addr string, log *zap.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.Watchdog(ctx, healthAnswers(addr), func(err error) {
			log.Warn("watchdog: the API does not answer; no ping to systemd, which restarts vmplane if this lasts WatchdogSec",
				zap.Error(err))
		})
	}()
	return func() { cancel(); <-done }
}

// healthAnswers checks that the API on addr (as the listener reports it, maybe a
// wildcard address) answers a health request in time.
func healthAnswers(addr string) func(context.Context) error {
	host, port, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err == nil && ip != nil && ip.IsUnspecified() {
		// A wildcard listener ("tcp" on ":8080" or "[::]:8080") is dual-stack in Go, and
		// 127.0.0.1 exists where ::1 may not (IPv6 disabled on lo).
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/api/health"
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("GET %s: %w", url, err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<20))
		return res.Body.Close()
	}
}
