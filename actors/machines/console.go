package machines

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/auth"

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
	session   ConsoleSession
}

// ConsoleSession names the login a ticket was issued to: a console opened with the
// ticket lasts only as long as that login (see Users.Authorize), as every request of
// the login does.
type ConsoleSession struct {
	UserID, SessionID string
	Gen               uint64
}

// Consoles issues console tickets and redeems them. Tickets live only in memory: they
// are worth a minute, and a restart invalidating them is the safe failure.
type Consoles struct {
	sys     *system
	mu      sync.Mutex
	tickets map[string]ConsoleTicket
	now     func() time.Time
}

func newConsoles(s *system) *Consoles {
	return &Consoles{sys: s, tickets: map[string]ConsoleTicket{}, now: s.rt.Clock.Now}
}

// Issue grants the login who a ticket for the console of a running machine.
func (c *Consoles) Issue(ctx context.Context, machineID string, tenant *string, who ConsoleSession) (ConsoleTicket, error) {
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
	t := ConsoleTicket{Ticket: persistence.NewID() + auth.RandomToken(24), MachineID: ref.ID, Type: "serial",
		ExpiresAt: now.Add(ConsoleTicketTTL).UTC(), ref: ref.Ref, session: who}
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

// Redeem spends a ticket for machineID and opens the console, answering the login the
// ticket was issued to. A ticket works once.
func (c *Consoles) Redeem(ctx context.Context, machineID, ticket string) (hypervisor.Console, ConsoleSession, error) {
	c.mu.Lock()
	t, ok := c.tickets[ticket]
	delete(c.tickets, ticket)
	now := c.now()
	c.mu.Unlock()
	if !ok || now.After(t.ExpiresAt) || (machineID != t.MachineID && machineID != strconv.Itoa(t.ref.VMID)) {
		return nil, ConsoleSession{}, errBadTicket
	}
	// The login may have ended since the ticket was issued.
	if c.sys.authorize(t.session.UserID, t.session.SessionID, t.session.Gen) != nil {
		return nil, ConsoleSession{}, errBadTicket
	}
	// The machine may have moved since the ticket was issued: ask for its node again.
	ref, err := c.sys.Machines.Ref(ctx, t.MachineID, nil)
	if err != nil {
		return nil, ConsoleSession{}, err
	}
	con, err := c.sys.driver.Console(ctx, ref.Ref)
	return con, t.session, err
}
