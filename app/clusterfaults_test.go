package app

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/tasks"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// The cluster's fault trials: three member processes on one etcd, a tenant's clients
// creating firewall rules through all of them as a load balancer's clients would, and
// the member holding the tenant killed with SIGKILL. `make test` runs one trial;
// `make test-cluster` runs VMPLANE_CLUSTER_TRIALS of them and prints the failover and
// restart figures BENCHMARKS.md records. Figures are logged, never asserted: the
// functional promises (nothing acknowledged lost, nothing applied twice, every entity
// served again, the restarted member serving) are.

// TestHelperClusterMember is one member process of TestClusterKillTrials.
func TestHelperClusterMember(t *testing.T) {
	endpoints := os.Getenv("VMPLANE_TEST_MEMBER_ETCD")
	if endpoints == "" {
		t.Skip("runs only as a child of TestClusterKillTrials")
	}
	cfg := testConfig(t)
	cfg.EtcdEndpoints = endpoints
	cfg.NodeName = os.Getenv("VMPLANE_TEST_MEMBER_NAME")
	cfg.ClusterAddr = "127.0.0.1:0"
	cfg.JWTKey = ""
	a, err := Start(cfg, nil, nil)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ADDR", a.Addr())
	<-a.Lost()
	os.Exit(1)
}

func clusterTrials(t *testing.T) int { return trialsFromEnv(t, "VMPLANE_CLUSTER_TRIALS") }

// ack is a create acknowledged: when it was sent and when its 201 came.
type ack struct{ sent, at time.Time }

// memberProc is one member process.
type memberProc struct {
	name string
	cmd  *exec.Cmd
	base string
}

func startMemberProc(t *testing.T, srv *etcdtest.Server, name string) *memberProc {
	t.Helper()
	cmd, base := startChildProcess(t, "^TestHelperClusterMember$",
		"VMPLANE_TEST_MEMBER_ETCD="+strings.Join(srv.Endpoints(), ","), "VMPLANE_TEST_MEMBER_NAME="+name)
	return &memberProc{name: name, cmd: cmd, base: base}
}

// TestClusterKillTrials kills the member that holds a tenant while that tenant's
// clients write through every member, and checks the cluster's promises: the tenant is
// served again through the others, every create acknowledged before or after the kill
// is there once, a create the kill cut short completes when its client retries it with
// its Idempotency-Key on the next member, a retry on any member gets the first answer,
// and the restarted member serves.
func TestClusterKillTrials(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts member processes")
	}
	srv := etcdtest.Start(t)
	members := map[string]*memberProc{}
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("m%d", i)
		members[name] = startMemberProc(t, srv, name)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	first := members["m0"]
	s0 := &testServer{t: t, base: first.base, client: &http.Client{Timeout: 30 * time.Second}}
	admin := s0.adminToken()
	expect(t, s0.do(req{method: "POST", path: "/api/virt/sync", token: admin}), 200, "")
	ten := s0.tenant(admin, "Trials", nil)
	// A schedule due every 10 s runs through the trials: once per due time, however
	// the members die and return.
	vm := s0.provision(ten.Token, smallMachine)
	r := s0.do(req{method: "POST", path: fmt.Sprintf("/api/client/machines/%d/power-schedules", vm.VMID), token: ten.Token,
		body: map[string]any{"action": "reboot", "cron": "*/10 * * * * *"}})
	expect(t, r, 201, "")
	var sched struct{ ID string }
	r.decode(t, &sched)
	schedID := sched.ID
	scheduled := time.Now()

	var all []ruleTry
	var failovers, restarts []time.Duration
	for trial := 1; trial <= clusterTrials(t); trial++ {
		// Make sure the tenant is active somewhere, then find where.
		if status, _, _ := createRuleWithKey(client, first.base, ten.Token, fmt.Sprintf("warm-%d", trial)); status != 201 {
			t.Fatalf("trial %d: warm-up create got %d", trial, status)
		}
		all = append(all, ruleTry{key: fmt.Sprintf("warm-%d", trial)})
		victim := members[ownerOf(t, srv, "tenants", ten.ID)]
		t.Logf("trial %d: the tenant is on %s, the schedule on %s", trial, victim.name, ownerOf(t, srv, "schedules", schedID))
		if victim == nil {
			t.Fatalf("trial %d: the tenant is held by no known member", trial)
		}
		var live []*memberProc
		for _, m := range members {
			if m != victim {
				live = append(live, m)
			}
		}
		bases := []string{victim.base, live[0].base, live[1].base}

		var (
			mu     sync.Mutex
			tries  []ruleTry
			acks   []ack
			wg     sync.WaitGroup
			killAt time.Time
		)
		stop := make(chan struct{})
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					try := ruleTry{key: fmt.Sprintf("trial-%d-worker-%d-%d", trial, w, i)}
					sent := time.Now()
					// A load balancer's client: its own member first, the next on failure,
					// with the same key until it is answered. A create the kill cut short
					// is answered 409 (in progress) while the dead member's lease lasts,
					// then it completes: it must not be left without an answer.
					deadline := time.Now().Add(20 * time.Second)
					status := 0
					for attempt := 0; try.ruleID == ""; attempt++ {
						var id string
						if status, id, _ = createRuleWithKey(client, bases[(w+attempt)%3], ten.Token, try.key); status == 201 {
							try.ruleID = id
							break
						}
						if time.Now().After(deadline) {
							t.Errorf("trial %d: %s got no answer in 20 s through the members (last %d); want its 201", trial, try.key, status)
							break
						}
						// A client's pause between tries, as the Go client's backoff makes:
						// the trial models that client; nothing is waited for here.
						time.Sleep(100 * time.Millisecond)
					}
					mu.Lock()
					tries = append(tries, try)
					if try.ruleID != "" {
						acks = append(acks, ack{sent: sent, at: time.Now()})
					}
					mu.Unlock()
				}
			}()
		}
		acked := func(after time.Time) int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, a := range acks {
				if a.sent.After(after) {
					n++
				}
			}
			return n
		}
		testwait.Poll(30*time.Second, func() bool { return acked(time.Time{}) >= 30 })
		killAt = time.Now()
		// Odd trials kill the member; even ones pause it (SIGSTOP) for longer than its
		// lease, as a stalled VM or a long GC would: it must not write after it
		// resumes, and must exit by itself so that systemd restarts it.
		pause := trial%2 == 0
		if pause {
			if err := victim.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
		} else if err := victim.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		// The tenant is served again through the others, and so is its machine.
		testwait.Eventually(t, "creates acknowledged after the kill", func() bool { return acked(killAt) >= 30 })
		for _, m := range live {
			testwait.Eventually(t, "the machine answering on "+m.name, func() bool {
				return doWith(t, client, m.base, req{method: "GET", path: "/api/resources/machines/" + vm.ID, token: ten.Token}).Status == 200
			})
		}
		close(stop)
		wg.Wait()
		if pause {
			if err := victim.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- victim.cmd.Wait() }()
			select {
			case err := <-exited:
				if code := victim.cmd.ProcessState.ExitCode(); code != 1 {
					t.Fatalf("trial %d: the paused member exited with %d (%v); want 1, for systemd to restart it", trial, code, err)
				}
			case <-time.After(time.Minute):
				t.Fatalf("trial %d: the paused member, resumed after its lease expired, is still running", trial)
			}
		} else {
			_ = victim.cmd.Wait()
		}
		mu.Lock()
		// Failover: from the kill to the first create acknowledged of those sent after it.
		var firstAfter time.Time
		for _, a := range acks {
			if a.sent.After(killAt) && (firstAfter.IsZero() || a.at.Before(firstAfter)) {
				firstAfter = a.at
			}
		}
		mu.Unlock()
		failovers = append(failovers, firstAfter.Sub(killAt))
		all = append(all, tries...)

		// Every create is retried with its key through a live member.
		checkAcked, _ := retryEach(t, client, live[0].base, ten.Token, trial, tries)
		checkAppliedOnce(t, &testServer{t: t, base: live[1].base, client: client}, ten.Token, trial, all)

		// The killed member comes back under its name and serves.
		startAt := time.Now()
		back := startMemberProc(t, srv, victim.name)
		members[victim.name] = back
		testwait.Eventually(t, victim.name+" serving again", func() bool {
			r := doWith(t, client, back.base, req{method: "GET", path: "/api/client/firewall/rules?limit=1", token: ten.Token})
			return r.Status == 200
		})
		restarts = append(restarts, time.Since(startAt))
		if first == victim {
			first = back
		}
		how := "killed"
		if pause {
			how = "paused past its lease"
		}
		t.Logf("trial %d: %s %s; first create acknowledged %v after the kill; %d creates (%d acknowledged) checked; restarted member served %v after its start",
			trial, how, victim.name, failovers[len(failovers)-1].Round(time.Millisecond), len(tries), checkAcked, restarts[len(restarts)-1].Round(time.Millisecond))
	}
	checkScheduleRuns(t, &testServer{t: t, base: first.base, client: &http.Client{Timeout: 30 * time.Second}}, admin, vm.ID, scheduled)
	t.Logf("failover over %d trials: %s", len(failovers), spread(failovers))
	t.Logf("restart over %d trials: %s", len(restarts), spread(restarts))
}

// spread is a few figures' min, median and max.
func spread(ds []time.Duration) string {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return fmt.Sprintf("min %v, median %v, max %v", s[0].Round(time.Millisecond), s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}

// checkScheduleRuns checks that the every-10-s schedule of machine ran exactly once in
// each 10-second slot from the first whole slot after since to the last one that has
// ended: a run due while its owner died runs late (within its slot: failover takes a
// few seconds), once.
func checkScheduleRuns(t *testing.T, s *testServer, admin, machine string, since time.Time) {
	t.Helper()
	const slot = 10 * time.Second
	first := since.Truncate(slot).Add(slot)
	// At least one whole slot is checked, however short the trials were.
	end := time.Now().Truncate(slot)
	if end.Before(first) {
		end = first
	}
	runs := map[int64]int{} // by the slot's unix second: time.Time keys compare locations too
	count := func() {
		clear(runs)
		for _, task := range listOf[tasks.Task](s, admin, "/api/resources/tasks?limit=500") {
			if task.TargetID == machine && task.Type == "vm.reboot" {
				runs[task.CreatedAt.Truncate(slot).Unix()]++
			}
		}
	}
	// The run of the slot after the last one checked is the witness that every run
	// of the checked slots has landed.
	testwait.Eventually(t, "the schedule's run after "+end.Format(time.TimeOnly), func() bool {
		count()
		return runs[end.Add(slot).Unix()] > 0
	})
	n := 0
	for at := first; !at.After(end); at = at.Add(slot) {
		n++
		if runs[at.Unix()] != 1 {
			t.Errorf("the schedule ran %d times in the slot of %s; want once", runs[at.Unix()], at.Format(time.TimeOnly))
		}
	}
	t.Logf("the every-10-s schedule ran once in each of its %d slots through the trials", n)
}
