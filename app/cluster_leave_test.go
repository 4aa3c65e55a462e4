package app

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/testwait"
)

// A member that stops gracefully hands its entities over: requests another member
// forwards to it while it stops are served there or refused as not delivered, and the
// forwarding member then finds the entity's next owner. No request fails.
func TestClusterGracefulLeaveLosesNoRequest(t *testing.T) {
	t.Parallel()
	ms, srv := startCluster(t, 2)
	a, b := ms[0], ms[1]
	admin := a.adminToken()
	// Tenants created through b are claimed by b.
	var ids []string
	for i := 0; i < 8; i++ {
		r := b.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": fmt.Sprintf("Leaving %d", i)}})
		expect(t, r, 201, "")
		var ten tenants.Tenant
		r.decode(t, &ten)
		if o := ownerOf(t, srv, "tenants", ten.ID); o != "m1" {
			t.Fatalf("tenant %s is held by %q; the test needs it on m1", ten.ID, o)
		}
		ids = append(ids, ten.ID)
	}
	// Readers through a, forwarded to b, until b is gone and a few rounds after.
	var (
		mu       sync.Mutex
		failures []string
		answered int
		wg       sync.WaitGroup
	)
	stop := make(chan struct{})
	read := func(id string) {
		hr, _ := http.NewRequest("GET", a.base+"/api/resources/tenants/"+id, nil)
		hr.Header.Set("Authorization", "Bearer "+admin)
		res, err := a.client.Do(hr)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, fmt.Sprintf("tenant %s: %v", id, err))
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		answered++
		if res.StatusCode != 200 {
			failures = append(failures, fmt.Sprintf("tenant %s: %d %s", id, res.StatusCode, body))
		}
	}
	for i := 0; i < 4*len(ids); i++ {
		id := ids[i%len(ids)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					// One more once b is gone: the entity's new owner answers.
					read(id)
					return
				default:
				}
				read(id)
			}
		}()
	}
	testwait.Eventually(t, "requests flow through m0 to m1", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return answered >= 4*len(ids)
	})
	b.stop()
	close(stop)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed while a member left, first: %s", len(failures), answered, failures[0])
	}
	for _, id := range ids {
		if o := ownerOf(t, srv, "tenants", id); o != "m0" {
			t.Fatalf("tenant %s is held by %q after m1 left; want m0", id, o)
		}
	}
}
