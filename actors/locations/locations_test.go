package locations

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// built is a driver the test's Build made, with the settings it was made from.
type built struct {
	hypervisor.Driver
	s Settings
}

// testSystem is the locations over a dispatcher of a simulated default location.
type testSystem struct {
	*Locations
	store persistence.Store
	disp  *hvloc.Dispatcher
}

var key = bytes.Repeat([]byte{7}, KeyLen)

func newTestSystem(t *testing.T, key []byte) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{})
	disp := hvloc.New(sim.New(sim.Config{OpDelay: -1}))
	build := func(s Settings) (hypervisor.Driver, error) {
		if s.Location.Driver == DriverProxmox && !strings.HasPrefix(s.Location.Proxmox.URL, "https://") {
			return nil, errors.New("URL must be https")
		}
		return built{Driver: sim.New(sim.Config{OpDelay: -1, Nodes: 1}), s: s}, nil
	}
	l, err := Start(ctxFor(t), Deps{Runtime: rt, Dispatcher: disp, Build: build, Key: key, DefaultDriver: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.Stop()
		rt.Shutdown()
		store.Close()
	})
	return &testSystem{Locations: l, store: store, disp: disp}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func want(t *testing.T, what string, err error, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got %v; want %v", what, err, target)
	}
}

func proxmoxSpec(name string) LocationSpec {
	return LocationSpec{Name: name, Driver: DriverProxmox, Proxmox: &ProxmoxSpec{URL: "https://fra.example:8006",
		TokenID: "vmplane@pve!api", TokenSecret: "s3cret-token", TLSFingerprint: "AB:CD"}}
}

// TestLocationLifecycle: a location is created (its driver in the dispatcher at once),
// listed after the default one, renamed, and deleted (its driver gone); the default
// location is neither changed nor deleted.
func TestLocationLifecycle(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	loc, err := s.Create(ctx, proxmoxSpec("Frankfurt"))
	if err != nil {
		t.Fatal(err)
	}
	if loc.Proxmox == nil || !loc.Proxmox.TokenSecretStored || loc.Proxmox.URL != "https://fra.example:8006" {
		t.Errorf("created: got %+v; want the settings with the secret stored", loc.Proxmox)
	}
	drv, err := s.disp.Location(loc.ID)
	if err != nil {
		t.Fatalf("dispatcher after the create: %v", err)
	}
	if got := drv.(built).s; got.TokenSecret != "s3cret-token" || got.Location.Proxmox.TLSFingerprint != "AB:CD" {
		t.Errorf("driver built from: got %+v; want the secret opened", got)
	}
	list, next, err := s.List(ctx, "", 0)
	if err != nil || next != "" || len(list) != 2 || list[0].ID != Default || !list[0].Default || list[1].ID != loc.ID {
		t.Fatalf("list: got %+v, %q, %v; want default then Frankfurt", list, next, err)
	}
	_, err = s.Create(ctx, proxmoxSpec("FRANKFURT"))
	want(t, "a second Frankfurt", err, apierr.ErrConflict)
	_, err = s.Create(ctx, LocationSpec{Name: "Default", Driver: DriverSim})
	want(t, "a location named default", err, apierr.ErrInvalidRequest)
	renamed, err := s.Update(ctx, loc.ID, LocationChange{Name: kit.Ptr("FRA")})
	if err != nil || renamed.Name != "FRA" || !renamed.Proxmox.TokenSecretStored {
		t.Fatalf("rename: got %+v, %v; want FRA with its secret kept", renamed, err)
	}
	if got := mustDriver(t, s, loc.ID).s; got.TokenSecret != "s3cret-token" || got.Location.Name != "FRA" {
		t.Errorf("driver after the rename: got %+v; want rebuilt with the secret", got)
	}
	_, err = s.Update(ctx, Default, LocationChange{Name: kit.Ptr("x")})
	want(t, "change of the default", err, apierr.ErrConflict)
	want(t, "delete of the default", s.Delete(ctx, Default), apierr.ErrConflict)
	if err := s.Delete(ctx, loc.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.disp.Location(loc.ID)
	want(t, "dispatcher after the delete", err, hvloc.ErrLocationNotFound)
	_, err = s.Get(ctx, loc.ID)
	want(t, "get after the delete", err, apierr.ErrNotFound)
}

func mustDriver(t *testing.T, s *testSystem, id string) built {
	t.Helper()
	drv, err := s.disp.Location(id)
	if err != nil {
		t.Fatal(err)
	}
	return drv.(built)
}

// TestSecretSealed: the token secret is stored sealed (the stored record holds no
// plain secret and the API's view none at all), and opens only with the key.
func TestSecretSealed(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	loc, err := s.Create(ctx, proxmoxSpec("fra"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.store.Get(ctx, locationKey(loc.ID))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("s3cret-token")) || !bytes.Contains(raw, []byte("sealed_secret")) {
		t.Errorf("stored record: %s; want the secret sealed", raw)
	}
	var rec record
	if _, err := persistence.Decode(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if _, err := open(bytes.Repeat([]byte{8}, KeyLen), loc.ID, rec.SealedSecret); err == nil {
		t.Errorf("open with another key: got no error")
	}
	if _, err := open(key, "another-id", rec.SealedSecret); err == nil {
		t.Errorf("open under another location's id: got no error")
	}
	// No key: a secret is refused, a secret file taken.
	nokey := newTestSystem(t, nil)
	_, err = nokey.Create(ctx, proxmoxSpec("fra"))
	want(t, "a secret with no key", err, apierr.ErrInvalidRequest)
	file := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(file, []byte("from-a-file-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := proxmoxSpec("fra")
	spec.Proxmox.TokenSecret, spec.Proxmox.TokenSecretFile = "", file
	loc, err = nokey.Create(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustDriver(t, nokey, loc.ID).s.TokenSecret; got != "from-a-file-0123" || loc.Proxmox.TokenSecretStored {
		t.Errorf("secret file: got %q, stored %v; want from-a-file-0123, not stored", got, loc.Proxmox.TokenSecretStored)
	}
	// A file that holds anything but a token secret is refused, and what it holds is
	// not told: the secret would go to a URL the operator chooses.
	other := filepath.Join(t.TempDir(), "passwd")
	if err := os.WriteFile(other, []byte("root:x:0:0:root:/root:/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Name, spec.Proxmox.TokenSecretFile = "other", other
	_, err = nokey.Create(ctx, spec)
	want(t, "a file that holds no token secret", err, apierr.ErrInvalidRequest)
	if strings.Contains(err.Error(), "root") {
		t.Errorf("refusal: %v; want nothing of the file's content", err)
	}
}

// TestLocationRefusals: settings a driver refuses, a driver not known, proxmox
// settings on a sim location, and no secret at all are 400s that write nothing.
func TestLocationRefusals(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	bad := proxmoxSpec("fra")
	bad.Proxmox.URL = "http://fra.example"
	noSecret := proxmoxSpec("fra")
	noSecret.Proxmox.TokenSecret = ""
	for _, spec := range []LocationSpec{bad, noSecret, {Name: "x", Driver: "vmware"},
		{Name: "x", Driver: DriverSim, Proxmox: &ProxmoxSpec{}}, {Name: "x", Driver: DriverProxmox}, {Name: "", Driver: DriverSim}} {
		_, err := s.Create(ctx, spec)
		want(t, spec.Name+" "+spec.Driver, err, apierr.ErrInvalidRequest)
	}
	if list, _, _ := s.List(ctx, "", 0); len(list) != 1 {
		t.Errorf("list after refusals: got %d; want the default alone", len(list))
	}
}

// TestListPages: the default location heads the first page, and pages of one walk
// every location once.
func TestListPages(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	for _, n := range []string{"a", "b"} {
		if _, err := s.Create(ctx, LocationSpec{Name: n, Driver: DriverSim}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	cursor := ""
	for i := 0; i < 5; i++ {
		page, next, err := s.List(ctx, cursor, 1)
		if err != nil || len(page) != 1 {
			t.Fatalf("page %d: got %+v, %v; want one", i, page, err)
		}
		names = append(names, page[0].Name)
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(names, ",") != "default,a,b" {
		t.Errorf("pages: got %v; want default, a, b", names)
	}
	if page, _, _ := s.List(ctx, "", 2); len(page) != 2 {
		t.Errorf("first page of two: got %d", len(page))
	}
}

// TestAnotherMemberSees: a location written by another member (straight into the
// store) reaches this member's dispatcher through the store's watch.
func TestAnotherMemberSees(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	rec := record{Location: Location{ID: persistence.NewID(), Name: "ams", Driver: DriverSim}}
	val, err := persistence.Encode(locationVersion, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(locationKey(rec.ID), val)); err != nil {
		t.Fatal(err)
	}
	kittest.WaitFor(t, "the dispatcher holding the location written behind the service's back", func() bool {
		_, err := s.disp.Location(rec.ID)
		return err == nil
	})
}
