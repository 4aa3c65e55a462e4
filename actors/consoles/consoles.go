// Package consoles issues console tickets and redeems them: a ticket is a short-lived,
// single-use grant, kept in the store so that any member of a cluster redeems what any
// other issued, and redeeming it opens the machine's console on the hypervisor: the
// serial one, or the graphical one (vnc) of a machine with a display.
// It asks machines where a machine is (Machines.Ref) and checks a ticket's login through
// the injected Authorize (auth's users): it sits above both.
package consoles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"

	"github.com/vmplane/vmplane/actors/kit"
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
}

// ConsoleSession names the login a ticket was issued to: a console opened with the
// ticket lasts only as long as that login (see Users.Authorize), as every request of
// the login does.
type ConsoleSession struct {
	UserID, SessionID string
	Gen               uint64
}

// Consoles issues console tickets and redeems them. A ticket lives in the store under
// console-ticket/<SHA-256 of the ticket>, written with a TTL, so that one issued by any
// member of a cluster is redeemed on any other (a load balancer sends the console's
// WebSocket where it likes), and redeemed by a delete that requires the value read: of
// two redemptions of one ticket, on one member or two, one deletes it and the other's
// condition fails, so a ticket works once in the whole cluster. The key is the ticket's
// hash, so that the store (and its backups) holds nothing a console can be opened with.
type Consoles struct {
	rt        *kit.Runtime
	store     persistence.Store
	driver    hypervisor.Driver
	machines  *machines.Machines
	authorize func(ctx context.Context, userID, sessionID string, gen uint64) error
	mu        sync.Mutex
	now       func() time.Time
}

// Deps are what the consoles need from outside their package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Machines *machines.Machines
	// Authorize answers nil while a login's session lasts (a console ticket lasts no
	// longer than the login that took it).
	Authorize func(ctx context.Context, userID, sessionID string, gen uint64) error
}

// storedTicket is a ticket as kept in the store.
type storedTicket struct {
	MachineID string `json:"machine_id"`
	VMID      int    `json:"vmid"`
	// Type is the console's type; "" (a ticket of an older member) is serial.
	Type      string         `json:"type,omitempty"`
	ExpiresAt time.Time      `json:"expires_at"`
	Session   ConsoleSession `json:"session"`
}

// ticketKey is the store key of ticket.
func ticketKey(ticket string) []byte {
	sum := sha256.Sum256([]byte(ticket))
	return persistence.Key("console-ticket", hex.EncodeToString(sum[:]))
}

// New returns the consoles' service.
func New(d Deps) *Consoles {
	return &Consoles{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, machines: d.Machines, authorize: d.Authorize, now: d.Runtime.Clock.Now}
}

// clock returns the time tickets are timed by now.
func (c *Consoles) clock() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

// Console types: the serial terminal, and the graphical console (RFB, as noVNC speaks
// it) of a machine with a display.
const (
	TypeSerial = "serial"
	TypeVNC    = "vnc"
)

// Issue grants the login who a ticket for the console of type typ ("" is serial) of a
// running machine. It is answered once the ticket is durable.
func (c *Consoles) Issue(ctx context.Context, machineID string, tenant *string, typ string, who ConsoleSession) (ConsoleTicket, error) {
	if typ == "" {
		typ = TypeSerial
	}
	if typ != TypeSerial && typ != TypeVNC {
		return ConsoleTicket{}, apierr.New(apierr.ErrInvalidRequest, "type: must be serial or vnc")
	}
	ref, err := c.machines.Ref(ctx, machineID, tenant)
	if err != nil {
		return ConsoleTicket{}, err
	}
	if ref.Status != machines.StatusRunning {
		return ConsoleTicket{}, apierr.New(apierr.ErrInvalidState, "the console needs a running machine; it is %s", ref.Status)
	}
	if typ == TypeVNC && !ref.Display {
		return ConsoleTicket{}, apierr.New(apierr.ErrInvalidState, "the machine has no display, so no vnc console; its serial console is type=serial")
	}
	t := ConsoleTicket{Ticket: persistence.NewID() + auth.RandomToken(24), MachineID: ref.ID, Type: typ,
		ExpiresAt: c.clock().Add(ConsoleTicketTTL).UTC()}
	val, err := json.Marshal(storedTicket{MachineID: t.MachineID, VMID: ref.Ref.VMID, Type: typ, ExpiresAt: t.ExpiresAt, Session: who})
	if err != nil {
		return ConsoleTicket{}, err
	}
	// The store forgets it a little after it expires (ExpiresAt is what Redeem checks).
	b := new(persistence.Batch).PutTTL(ticketKey(t.Ticket), val, ConsoleTicketTTL+time.Second)
	if err := c.rt.Audit(b, kit.AuditOf(ctx).On("", ref.ID, kit.Deref(tenant))); err != nil {
		return ConsoleTicket{}, err
	}
	if err := c.store.Commit(ctx, b); err != nil {
		return ConsoleTicket{}, err
	}
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
// ticket was issued to. A ticket works once, on any member.
func (c *Consoles) Redeem(ctx context.Context, machineID, ticket string) (hypervisor.Console, ConsoleSession, error) {
	t, err := c.spend(ctx, ticket)
	if err != nil {
		return nil, ConsoleSession{}, err
	}
	if c.clock().After(t.ExpiresAt) || (machineID != t.MachineID && machineID != strconv.Itoa(t.VMID)) {
		return nil, ConsoleSession{}, errBadTicket
	}
	// The login may have ended since the ticket was issued.
	if c.authorize(ctx, t.Session.UserID, t.Session.SessionID, t.Session.Gen) != nil {
		return nil, ConsoleSession{}, errBadTicket
	}
	// The machine may have moved since the ticket was issued: ask for its node again.
	ref, err := c.machines.Ref(ctx, t.MachineID, nil)
	if err != nil {
		return nil, ConsoleSession{}, err
	}
	open := c.driver.Console
	if t.Type == TypeVNC {
		open = c.driver.Display
	}
	con, err := open(ctx, ref.Ref)
	return con, t.Session, err
}

// spend deletes the stored ticket, requiring it unchanged since read: the one
// redemption whose delete lands gets it, every other errBadTicket.
func (c *Consoles) spend(ctx context.Context, ticket string) (storedTicket, error) {
	if ticket == "" || len(ticket) > 256 {
		return storedTicket{}, errBadTicket
	}
	key := ticketKey(ticket)
	val, err := c.store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return storedTicket{}, errBadTicket
	} else if err != nil {
		return storedTicket{}, err
	}
	var t storedTicket
	if err := json.Unmarshal(val, &t); err != nil {
		return storedTicket{}, errBadTicket
	}
	if err := c.store.Commit(ctx, new(persistence.Batch).Require(persistence.IfValue(key, val)).Del(key)); persistence.IsConditionFailed(err) {
		return storedTicket{}, errBadTicket
	} else if err != nil {
		return storedTicket{}, err
	}
	return t, nil
}
