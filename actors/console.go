package actors

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// ConsoleTicketTTL is how long a console ticket may wait to be used.
const ConsoleTicketTTL = 60 * time.Second

// ConsoleTicket is a short-lived, single-use grant to open one machine's console.
type ConsoleTicket struct {
	Ticket    string    `json:"ticket"`
	MachineID string    `json:"machine_id"`
	Type      string    `json:"type"`
	ExpiresAt time.Time `json:"expires_at"`
	ref       hypervisor.Ref
}

// Consoles issues console tickets and redeems them. Tickets live only in memory: they
// are worth a minute, and a restart invalidating them is the safe failure.
type Consoles struct {
	sys     *System
	mu      sync.Mutex
	tickets map[string]ConsoleTicket
	now     func() time.Time
}

func newConsoles(s *System) *Consoles {
	return &Consoles{sys: s, tickets: map[string]ConsoleTicket{}, now: time.Now}
}

// Issue grants a ticket for the console of a running machine.
func (c *Consoles) Issue(ctx context.Context, machineID string, tenant *string) (ConsoleTicket, error) {
	ref, err := c.sys.Machines.Ref(ctx, machineID, tenant)
	if err != nil {
		return ConsoleTicket{}, err
	}
	if ref.Status != StatusRunning {
		return ConsoleTicket{}, apierr.New(apierr.ErrInvalidState, "the console needs a running machine; it is %s", ref.Status)
	}
	c.mu.Lock()
	now := c.now()
	c.mu.Unlock()
	t := ConsoleTicket{Ticket: persistence.NewID() + randomToken(24), MachineID: ref.ID, Type: "serial",
		ExpiresAt: now.Add(ConsoleTicketTTL).UTC(), ref: ref.Ref}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, old := range c.tickets {
		if now.After(old.ExpiresAt) {
			delete(c.tickets, k)
		}
	}
	c.tickets[t.Ticket] = t
	return t, nil
}

// SetClock replaces the clock tickets are timed by, for tests of expiry.
func (c *Consoles) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
}

var errBadTicket = apierr.New(apierr.ErrUnauthorized, "the console ticket is missing, used or expired")

// Redeem spends a ticket for machineID and opens the console. A ticket works once.
func (c *Consoles) Redeem(ctx context.Context, machineID, ticket string) (hypervisor.Console, error) {
	c.mu.Lock()
	t, ok := c.tickets[ticket]
	delete(c.tickets, ticket)
	now := c.now()
	c.mu.Unlock()
	if !ok || now.After(t.ExpiresAt) || (machineID != t.MachineID && machineID != strconv.Itoa(t.ref.VMID)) {
		return nil, errBadTicket
	}
	// The machine may have moved since the ticket was issued: ask for its node again.
	ref, err := c.sys.Machines.Ref(ctx, t.MachineID, nil)
	if err != nil {
		return nil, err
	}
	return c.sys.driver.Console(ctx, ref.Ref)
}
