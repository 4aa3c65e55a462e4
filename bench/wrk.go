package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// WrkResult is what wrk measured on the same route, for the harness's own efficiency
// check: the harness should reach at least 90% of wrk's throughput.
type WrkResult struct {
	Command    string  `json:"command"`
	Requests   int64   `json:"requests"`
	Throughput float64 `json:"throughput_rps"`
	P50US      int64   `json:"p50_us"`
	P99US      int64   `json:"p99_us"`
	// Errors are socket errors plus non-2xx/3xx answers.
	Errors int64 `json:"errors"`
}

// RunWrk runs the wrk binary against url with the given connections, threads and
// duration, and parses its summary.
func RunWrk(ctx context.Context, bin, url string, connections, threads int, duration, timeout time.Duration) (WrkResult, error) {
	threads = max(1, min(threads, connections))
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(connections),
		"-d" + strconv.Itoa(int(max(duration.Seconds(), 1))) + "s", "--timeout", strconv.Itoa(int(max(timeout.Seconds(), 1))) + "s", "--latency", url}
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return WrkResult{}, fmt.Errorf("%s: %w: %s", cmd, err, strings.TrimSpace(string(out)))
	}
	res, err := parseWrk(string(out))
	res.Command = strings.Join(append([]string{bin}, args...), " ")
	return res, err
}

var (
	wrkRequests = regexp.MustCompile(`(?m)^\s*(\d+) requests in `)
	wrkRate     = regexp.MustCompile(`(?m)^Requests/sec:\s*([\d.]+)`)
	wrkPct      = regexp.MustCompile(`^\s*(50|99)(?:\.000)?%\s+([\d.]+)(us|ms|s)\s*$`)
	wrkSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

func parseWrk(out string) (WrkResult, error) {
	var r WrkResult
	m := wrkRate.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("wrk printed no Requests/sec line: " + strings.TrimSpace(out))
	}
	r.Throughput, _ = strconv.ParseFloat(m[1], 64)
	if m := wrkRequests.FindStringSubmatch(out); m != nil {
		r.Requests, _ = strconv.ParseInt(m[1], 10, 64)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := wrkPct.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		switch m[3] {
		case "ms":
			v *= 1e3
		case "s":
			v *= 1e6
		}
		if m[1] == "50" {
			r.P50US = int64(v)
		} else {
			r.P99US = int64(v)
		}
	}
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			r.Errors += n
		}
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		r.Errors += n
	}
	return r, nil
}
