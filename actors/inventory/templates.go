package inventory

import (
	"context"
	"errors"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// templateKey is the key of a template's record: template/<id>.
func templateKey(id string) []byte { return persistence.Key("template", id) }

const templateVersion = 1

// TemplateID is the id of the template id of the location tagged loc, as the records
// and the API name it: the hypervisor's id in the default location, id@location in
// the others, as node ids (capacity.NodeID), because every cluster may have its own
// "debian-12". The dispatcher takes either form for the location it routes to.
func TemplateID(loc, id string) string {
	if loc == "" {
		return id
	}
	return id + "@" + loc
}

// syncTemplates makes the stored templates those of the locations that answered; a
// location that did not keeps its templates as they were, unless it was deleted (gone). Templates are
// hypervisor-owned reference data with no actor: only sync, run by the one sync entity
// and serialised by mu, writes them.
func (c *Inventory) syncTemplates(ctx context.Context, answered []hvloc.LocationInventory, gone func(context.Context, string) (bool, error)) error {
	b := new(persistence.Batch)
	seen := map[string]bool{}
	reached := map[string]bool{}
	for _, li := range answered {
		reached[li.Location] = true
		for _, t := range li.Inventory.Templates {
			t.ID, t.Location = TemplateID(li.Location, t.ID), li.Location
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
	}
	prefix := persistence.Prefix("template")
	err := c.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		var t hypervisor.Template
		if _, err := persistence.Decode(v, &t); err != nil {
			t.Location = "" // unreadable: the default location's to replace
		}
		if seen[string(k[len(prefix):])] {
			return nil
		}
		drop := reached[t.Location]
		if !drop {
			g, err := gone(ctx, t.Location)
			if err != nil {
				return err
			}
			drop = g
		}
		if drop {
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
