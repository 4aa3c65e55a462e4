package app

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/tenants"
)

// crashTrials is how many kill -9 trials TestCrashTrialsApplyOnce runs: one in
// `make test`, more with VMPLANE_CRASH_TRIALS (`make faults` runs 10).
func crashTrials(t *testing.T) int { return trialsFromEnv(t, "VMPLANE_CRASH_TRIALS") }

// trialsFromEnv is how many trials the environment variable name asks for: one when
// it is unset.
func trialsFromEnv(t *testing.T, name string) int {
	n := 1
	if v := os.Getenv(name); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("%s=%q: want a whole number of trials", name, v)
		}
	}
	return n
}

// ruleTry is one firewall rule create of a crash trial: its Idempotency-Key, and the
// rule's id when the create was acknowledged (201) before the kill.
type ruleTry struct {
	key, ruleID string
}

// TestCrashTrialsApplyOnce kills the server process with SIGKILL while a tenant's
// clients create firewall rules, each with its own Idempotency-Key (and the key in the
// rule's comment), restarts it on the same data directory, and retries every create,
// answered or not, with its key, as a client that lost its connection does. Each trial
// checks that every acknowledged rule is there (nothing acknowledged is lost) and its
// retry replays the first answer; that a retry of a create the kill cut short gets its
// one answer, 201 (the create runs now, or it had applied and answers with its rule);
// and that no key has two rules (nothing is applied twice).
func TestCrashTrialsApplyOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	client := &http.Client{Timeout: 5 * time.Second}
	var tenantToken string
	var all []ruleTry // every key of every trial
	for trial := 1; trial <= crashTrials(t); trial++ {
		cmd, base := startChild(t, dir)
		child := &testServer{t: t, base: base, client: &http.Client{Timeout: 30 * time.Second}}
		if trial == 1 {
			tenantToken = child.tenant(child.adminToken(), "Trials", nil).Token
		} else {
			tenantToken = child.login("trials@example.test", "tenant-password").Token
		}

		var (
			mu    sync.Mutex
			tries []ruleTry
			wg    sync.WaitGroup
		)
		stop := make(chan struct{})
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ { // enough to be killed among, few enough to retry quickly
					select {
					case <-stop:
						return
					default:
					}
					try := ruleTry{key: fmt.Sprintf("trial-%d-worker-%d-%d", trial, w, i)}
					status, id, _ := createRuleWithKey(client, base, tenantToken, try.key)
					if status == 201 {
						try.ruleID = id
					}
					mu.Lock()
					tries = append(tries, try)
					mu.Unlock()
				}
			}()
		}
		killWhen(t, cmd, func() bool {
			mu.Lock()
			defer mu.Unlock()
			acked := 0
			for _, tr := range tries {
				if tr.ruleID != "" {
					acked++
				}
			}
			return acked >= 40
		})
		close(stop)
		wg.Wait()
		all = append(all, tries...)

		// The restarted server: every create is retried with its key.
		check, base := startChild(t, dir)
		tok := (&testServer{t: t, base: base, client: client}).login("trials@example.test", "tenant-password").Token
		acked, cut := retryEach(t, client, base, tok, trial, tries)
		if acked == 0 {
			t.Fatalf("trial %d: no create was acknowledged before the kill", trial)
		}
		checkAppliedOnce(t, &testServer{t: t, base: base, client: client}, tok, trial, all)
		t.Logf("trial %d: %d creates, %d acknowledged before the kill, %d cut short by it", trial, len(tries), acked, cut)
		// The next trial starts its own process on the data directory.
		_ = check.Process.Kill()
		_ = check.Wait()
	}
}

// createRuleWithKey creates a firewall rule as a tenant with an Idempotency-Key,
// without failing the test: the server may be killed at any moment. It answers the
// status (0 without an answer), the rule's id and whether the answer was a replay.
func createRuleWithKey(client *http.Client, base, tok, key string) (int, string, bool) {
	body := `{"direction":"in","action":"accept","protocol":"tcp","port":"443","comment":"` + key + `"}`
	hr, _ := http.NewRequest("POST", base+"/api/client/firewall/rules", strings.NewReader(body))
	hr.Header.Set("Authorization", "Bearer "+tok)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Idempotency-Key", key)
	res, err := client.Do(hr)
	if err != nil {
		return 0, "", false
	}
	defer res.Body.Close()
	var rule tenants.FirewallRule
	if res.StatusCode == 201 && jsonDecode(res, &rule) != nil {
		return 0, "", false
	}
	return res.StatusCode, rule.ID, res.Header.Get("Idempotent-Replayed") == "true"
}

// allRules lists every firewall rule of the tenant, page by page.
func allRules(s *testServer, tok string) []tenants.FirewallRule {
	s.t.Helper()
	var all []tenants.FirewallRule
	path := "/api/client/firewall/rules?limit=500"
	for {
		r := s.do(req{method: "GET", path: path, token: tok})
		expect(s.t, r, 200, "")
		var p struct {
			Items      []tenants.FirewallRule `json:"items"`
			NextCursor *string                `json:"next_cursor"`
		}
		r.decode(s.t, &p)
		all = append(all, p.Items...)
		if p.NextCursor == nil {
			return all
		}
		path = "/api/client/firewall/rules?limit=500&cursor=" + url.QueryEscape(*p.NextCursor)
	}
}

// retryEach retries every create of a trial with its key through base, as a client
// that lost its connection does: an acknowledged one must replay its first answer, and
// one the kill cut short must get its one answer too, 201: the claim its dead process
// left is taken over (the create's write carries it, so it tells whether the create
// applied). It returns how many were acknowledged and how many cut short.
func retryEach(t *testing.T, client *http.Client, base, tok string, trial int, tries []ruleTry) (acked, cut int) {
	t.Helper()
	for _, tr := range tries {
		status, id, replayed := createRuleWithKey(client, base, tok, tr.key)
		if status != 201 {
			t.Fatalf("trial %d: the retry of %s (acknowledged: %v) got %d; want 201", trial, tr.key, tr.ruleID != "", status)
		}
		if tr.ruleID == "" {
			cut++
		}
		if tr.ruleID != "" {
			acked++
			if id != tr.ruleID || !replayed {
				t.Fatalf("trial %d: the retry of acknowledged %s got rule %s (replayed %v); want the first answer, rule %s, replayed",
					trial, tr.key, id, replayed, tr.ruleID)
			}
		}
	}
	return acked, cut
}

// checkAppliedOnce checks the tenant's rules after every trial so far, each key of
// which was retried to its 201: every key has exactly one rule (nothing applied twice,
// nothing answered and not applied) and every acknowledged rule is there (nothing
// lost).
func checkAppliedOnce(t *testing.T, s *testServer, tok string, trial int, all []ruleTry) {
	t.Helper()
	byKey := map[string]string{}
	for _, r := range allRules(s, tok) {
		if r.Comment == "" {
			t.Fatalf("trial %d: rule %s has no comment", trial, r.ID)
		}
		if other, dup := byKey[r.Comment]; dup {
			t.Fatalf("trial %d: key %s was applied twice: rules %s and %s", trial, r.Comment, other, r.ID)
		}
		byKey[r.Comment] = r.ID
	}
	for _, tr := range all {
		if tr.ruleID != "" && byKey[tr.key] != tr.ruleID {
			t.Fatalf("trial %d: acknowledged rule %s of %s is gone", trial, tr.ruleID, tr.key)
		}
		if byKey[tr.key] == "" {
			t.Fatalf("trial %d: key %s, retried to its 201, has no rule", trial, tr.key)
		}
	}
}
