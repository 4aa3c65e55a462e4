package inventory

import (
	"context"
	"errors"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// templateKey is the key of a template's record: template/<id>.
func templateKey(id string) []byte { return persistence.Key("template", id) }

const templateVersion = 1

// syncTemplates makes the stored templates those of the hypervisor. Templates are
// hypervisor-owned reference data with no actor: only sync, run by the one sync entity
// and serialised by mu, writes them.
func (c *Inventory) syncTemplates(ctx context.Context, ts []hypervisor.Template) error {
	b := new(persistence.Batch)
	seen := map[string]bool{}
	for _, t := range ts {
		seen[t.ID] = true
		val, err := persistence.Encode(templateVersion, t)
		if err != nil {
			return err
		}
		if old, err := c.store.Get(ctx, templateKey(t.ID)); err == nil && string(old) == string(val) {
			continue
		}
		b.Put(templateKey(t.ID), val)
	}
	err := c.store.Scan(ctx, persistence.Prefix("template"), nil, 0, func(k, _ []byte) error {
		if !seen[string(k[len(persistence.Prefix("template")):])] {
			b.Del(append([]byte{}, k...))
		}
		return nil
	})
	if err != nil || len(b.Ops) == 0 {
		return err
	}
	return c.rt.Commit(b)
}

// Templates lists the OS templates known from the last sync.
func (c *Inventory) Templates(ctx context.Context) ([]hypervisor.Template, error) {
	out, _, err := c.TemplatePage(ctx, "", 0)
	return out, err
}

// TemplatePage returns a page of the OS templates known from the last sync, by id,
// after the cursor (limit 0: all).
func (c *Inventory) TemplatePage(ctx context.Context, cursor string, limit int) ([]hypervisor.Template, string, error) {
	return kit.ScanPage(ctx, c.store, persistence.Prefix("template"), cursor, limit,
		func(t *hypervisor.Template) (hypervisor.Template, bool) { return *t, true })
}

// Template returns one OS template.
func (c *Inventory) Template(ctx context.Context, id string) (hypervisor.Template, error) {
	val, err := c.store.Get(ctx, templateKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return hypervisor.Template{}, apierr.NotFound("template", id)
	}
	if err != nil {
		return hypervisor.Template{}, err
	}
	var t hypervisor.Template
	_, err = persistence.Decode(val, &t)
	return t, err
}
