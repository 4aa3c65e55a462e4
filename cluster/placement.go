package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
)

// An entity is claimed the first time any member needs it: the member that asks
// first puts owners/<kind>/<id> = <name>@<lease> under its lease, if nobody has.
// Claims stick: passivating an entity does not release it, so its next activation
// is on the same member and costs no etcd round trip, and ownership changes only when
// the owner's lease ends (it left, or died and its lease expired). Every member
// caches what it learned; the cache is dropped for a member that leaves and for a
// request that could not be delivered.

// claimRetry is how often a claim held by a lease that no member holds any more
// (a dead member's, until etcd expires it) is looked at again.
const claimRetry = 100 * time.Millisecond

var _ kit.Placement = (*Cluster)(nil)

// Local reports whether this member holds kind/id.
func (c *Cluster) Local(kind, id string) bool {
	if !c.leaseValid() {
		return false
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.owned[kind+"/"+id]
	return ok
}

// Place returns the member kind/id is active on, claiming it when nobody holds it.
func (c *Cluster) Place(ctx context.Context, kind, id string) (kit.Member, bool, error) {
	key := kind + "/" + id
	// stale is set once the entity was seen held by a member that is gone: claiming
	// it then is a takeover.
	stale := false
	for {
		c.mu.RLock()
		_, mine := c.owned[key]
		o, known := c.owners[key]
		var m memberRecord
		alive := false
		if known {
			m, alive = c.memberByLease(o)
		}
		c.mu.RUnlock()
		if mine && !c.leaseValid() {
			// Not renewed for a whole TTL (the process was paused, or etcd is out of
			// reach): another member may hold the entity by now, and what this one
			// holds in memory may be older than an acknowledged write.
			return kit.Member{}, false, unavailable(fmt.Errorf("this member's lease was not renewed in time; it cannot tell whether it still holds %s", key))
		}
		if mine {
			return kit.Member{Name: c.opts.Name, Addr: c.opts.Addr}, true, nil
		}
		if alive {
			return kit.Member{Name: m.Name, Addr: m.Addr}, false, nil
		}
		o, err := c.claim(ctx, key, stale)
		if err != nil {
			return kit.Member{}, false, err
		}
		if o.lease == c.lease {
			return kit.Member{Name: c.opts.Name, Addr: c.opts.Addr}, true, nil
		}
		c.mu.Lock()
		m, alive = c.memberByLease(o)
		if alive {
			c.owners[key] = o
		}
		c.mu.Unlock()
		if alive {
			return kit.Member{Name: m.Name, Addr: m.Addr}, false, nil
		}
		// Held by a lease no live member has: a dead member's, which etcd is about to
		// expire. Wait for it.
		stale = true
		if pauseFor(ctx, claimRetry); ctx.Err() != nil {
			return kit.Member{}, false, unavailable(fmt.Errorf("%s is held by a member that left; its lease has not expired yet", key))
		}
	}
}

// memberByLease returns the live member holding lease o; c.mu must be held.
func (c *Cluster) memberByLease(o owner) (memberRecord, bool) {
	m, ok := c.members[o.name]
	return m, ok && clientv3.LeaseID(m.Lease) == o.lease
}

// claim puts this member's claim on key unless someone holds it, and returns the
// holder either way. takeover says the entity was seen held by a departed member.
func (c *Cluster) claim(ctx context.Context, key string, takeover bool) (owner, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	k := c.prefix + "owners/" + key
	val := c.opts.Name + "@" + strconv.FormatInt(int64(c.lease), 16)
	resp, err := c.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, val, clientv3.WithLease(c.lease))).
		Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		if isLeaseNotFound(err) {
			c.lose("a claim was refused: the lease is gone")
		}
		return owner{}, unavailable(err)
	}
	if resp.Succeeded {
		c.mu.Lock()
		c.owned[key] = resp.Header.Revision
		if _, ok := c.orphans[key]; ok || takeover {
			delete(c.orphans, key)
			c.takeovers.Add(1)
		}
		c.mu.Unlock()
		c.claims.Add(1)
		c.log.Debug("entity claimed", zap.String("entity", key))
		return owner{name: c.opts.Name, lease: c.lease}, nil
	}
	kvs := resp.Responses[0].GetResponseRange().Kvs
	if len(kvs) == 0 {
		// Released between the compare and the read: try again.
		return owner{}, nil
	}
	o := parseOwner(string(kvs[0].Value))
	if o.lease == c.lease {
		// Our own claim, released a moment ago (Release deletes it in the background):
		// put it again, so that the pending delete, which compares the revision it
		// released, no longer matches.
		resp, err := c.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.Value(k), "=", val)).
			Then(clientv3.OpPut(k, val, clientv3.WithLease(c.lease))).Commit()
		if err != nil {
			return owner{}, unavailable(err)
		}
		if !resp.Succeeded {
			return owner{}, nil // deleted meanwhile: claim afresh
		}
		c.mu.Lock()
		c.owned[key] = resp.Header.Revision
		c.mu.Unlock()
	}
	return o, nil
}

// Release gives up this member's claim on kind/id: the runtime calls it when the
// entity stopped because its record does not exist (a lookup of an unknown id, a
// deleted machine), so that such lookups do not leave a claim each in etcd. The key
// is deleted only if it is still the claim released: a new claim made meanwhile
// (claim puts it again) keeps it.
func (c *Cluster) Release(kind, id string) {
	key := kind + "/" + id
	c.mu.Lock()
	rev, ok := c.owned[key]
	delete(c.owned, key)
	c.mu.Unlock()
	if !ok || c.runCtx.Err() != nil {
		return
	}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		ctx, cancel := context.WithTimeout(c.runCtx, c.opts.RequestTimeout)
		defer cancel()
		k := c.prefix + "owners/" + key
		if _, err := c.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(k), "=", rev)).
			Then(clientv3.OpDelete(k)).Commit(); err != nil {
			// The claim stays until the member's lease ends: harmless.
			c.log.Debug("could not release a claim", zap.String("entity", key), zap.Error(err))
		}
	}()
}

// parseOwner reads <name>@<lease hex>.
func parseOwner(v string) owner {
	name, hexLease, _ := strings.Cut(v, "@")
	l, _ := strconv.ParseInt(hexLease, 16, 64)
	return owner{name: name, lease: clientv3.LeaseID(l)}
}

// Moved forgets the owner remembered for kind/id after a request to it failed.
func (c *Cluster) Moved(kind, id string, m kit.Member) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := kind + "/" + id
	if o, ok := c.owners[key]; ok && o.name == m.Name {
		delete(c.owners, key)
	}
}
