package app

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// smallProfile is the store part of the small appliance profile (docs/packaging.md, "Small
// appliance profile"; measured in BENCHMARKS.md).
const smallProfile = "store-cache-mb = 8\nstore-memtable-mb = 8\nstore-index-cache-mb = 4\n"

// TestSmallApplianceProfile: the profile's settings load from a configuration file, the
// store sizes refuse values Badger cannot work with, and a server with the profile
// serves writes and reads.
func TestSmallApplianceProfile(t *testing.T) {
	t.Parallel()
	l, err := Load([]string{"--config", writeConfig(t, smallProfile)}, envOfMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Config; c.StoreCacheMB != 8 || c.StoreMemTableMB != 8 || c.StoreIndexCacheMB != 4 {
		t.Fatalf("loaded %d, %d, %d; want 8, 8, 4", c.StoreCacheMB, c.StoreMemTableMB, c.StoreIndexCacheMB)
	}
	for _, bad := range []struct{ body, want string }{
		{"store-memtable-mb = 4\n", "must be 8..256"},
		{"store-memtable-mb = 1024\n", "must be 8..256"},
		{"store-index-cache-mb = 0\n", "must be at least 1"},
	} {
		_, err := Load([]string{"--config", writeConfig(t, bad.body)}, envOfMap(nil))
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v; want a ConfigError saying %q", bad.body, err, bad.want)
		}
	}

	s, admin := synced(t, func(c *Config) { c.StoreCacheMB, c.StoreMemTableMB, c.StoreIndexCacheMB = 8, 8, 4 })
	ten := s.tenant(admin, "Small", nil)
	m := s.provision(ten.Token, smallMachine)
	for i := range 20 {
		expect(t, s.do(req{method: "POST", path: "/api/client/firewall/rules", token: ten.Token, body: map[string]any{
			"direction": "in", "action": "accept", "protocol": "tcp", "port": strconv.Itoa(1000 + i), "machine_id": m.ID}}), 201, "")
	}
	s.restart()
	if got := listOf[map[string]any](s, s.adminToken(), "/api/resources/firewall-rules?limit=500"); len(got) != 20 {
		t.Errorf("%d rules after a restart; want 20", len(got))
	}
}
