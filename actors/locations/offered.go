package locations

import "context"

// OfferedLocation is a location as a tenant sees it, to choose where a new machine is made:
// nothing of its driver or its settings, which are the operator's.
type OfferedLocation struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Default says this is the location a create that names none is made in.
	Default bool `json:"default"`
	// Available is false while the location's hypervisor_unavailable alert is open:
	// the hypervisor watch found its cluster not answering (pinged every 30 s, two
	// failures in a row). It is read from the alert's condition in the store, not
	// pinged per request, so a list costs no call to any cluster.
	Available bool `json:"available"`
}

// Offered returns the locations a tenant may make machines in, as List orders and
// pages them, each with whether its cluster answers as the hypervisor watch last saw.
func (l *Locations) Offered(ctx context.Context, cursor string, limit int) ([]OfferedLocation, string, error) {
	items, next, err := l.List(ctx, cursor, limit)
	if err != nil {
		return nil, "", err
	}
	down := map[string]bool{}
	if l.d.Unavailable != nil {
		if down, err = l.d.Unavailable(ctx); err != nil {
			return nil, "", err
		}
	}
	out := make([]OfferedLocation, 0, len(items))
	for _, loc := range items {
		out = append(out, OfferedLocation{ID: loc.ID, Name: loc.Name, Default: loc.Default, Available: !down[loc.ID]})
	}
	return out, next, nil
}
