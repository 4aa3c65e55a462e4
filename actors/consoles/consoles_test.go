package consoles

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// TestConsoleTicketSpentOnce: redemptions of one ticket racing on several members (each
// its own Consoles over one store) spend it once; the others, and any later one, are
// refused.
func TestConsoleTicketSpentOnce(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	members := make([]*Consoles, 3)
	for i := range members {
		members[i] = &Consoles{store: store, now: time.Now}
	}
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		ticket := persistence.NewID() + "secret"
		val, err := json.Marshal(storedTicket{MachineID: "m1", VMID: 100, ExpiresAt: time.Now().Add(time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(ctx, new(persistence.Batch).PutTTL(ticketKey(ticket), val, time.Minute)); err != nil {
			t.Fatal(err)
		}
		spent := make([]error, 8)
		var wg sync.WaitGroup
		for i := range spent {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, spent[i] = members[i%3].spend(ctx, ticket)
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range spent {
			if err == nil {
				ok++
			} else if err != errBadTicket {
				t.Fatalf("round %d: %v; want the ticket refused as used", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: the ticket was spent %d times; want once", round, ok)
		}
		if _, err := members[0].spend(ctx, ticket); err != errBadTicket {
			t.Fatalf("round %d: a later redemption: %v; want refused", round, err)
		}
	}
}
