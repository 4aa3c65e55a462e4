package uitest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// location is a location as the API answers it.
type location struct {
	ID, Name, Driver string
	Default          bool
}

// locations are the locations by name, as the API lists them.
func (s *site) locations() map[string]location {
	s.t.Helper()
	var p struct{ Items []location }
	s.call("GET", "/api/resources/locations?limit=200", s.admin, nil, 200, &p)
	out := map[string]location{}
	for _, x := range p.Items {
		out[x.Name] = x
	}
	return out
}

// TestConsoleLocations: an operator sees the default location with its health and
// no action; is told, next to the secret's password input, that a Proxmox token's
// secret cannot be stored on a server without a sealing key; adds it (a fake Proxmox
// cluster) with the secret in a file on the server instead, whose settings its edit
// form offers again (the secret's file, never a secret); adds a simulated
// location, renames it in place, is refused its delete while an IP pool belongs to
// it (the API's detail naming the pool), and deletes it once the pool is gone.
func TestConsoleLocations(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/locations", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="New location"]`
	run(t, ctx, "the default location, healthy, not to be changed",
		navCurrent("Locations"),
		chromedp.WaitVisible(`//tr[@data-location="default"]/td[@data-health][normalize-space(.)="ok"]`),
		chromedp.WaitNotPresent(`//tr[@data-location="default"]//button`),
	)
	run(t, ctx, "a Proxmox cluster's secret that cannot be stored: the error next to it",
		chromedp.Click(`//button[normalize-space(.)="New location"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "Frankfurt"),
		chromedp.SendKeys(form+`//input[@name="proxmox.url"]`, "https://127.0.0.1:8006"),
		chromedp.SendKeys(form+`//input[@name="proxmox.token_id"]`, "vmplane@pve!api"),
		chromedp.SendKeys(form+`//input[@name="proxmox.token_secret"][@type="password"]`, "0a1b2c3d-0000-4000-8000-000000000000"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(form+`//input[@name="proxmox.token_secret"][@aria-invalid="true"]/following-sibling::span[contains(., "VMPLANE_LOCATION_SECRET_KEY_FILE")]`),
	)
	if _, ok := s.locations()["Frankfurt"]; ok {
		t.Fatal("the refused location was made")
	}
	pve := pvefake.New(pvefake.Config{})
	t.Cleanup(pve.Close)
	secret := filepath.Join(t.TempDir(), "pve.secret")
	if err := os.WriteFile(secret, []byte(pve.TokenSecret()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "the secret from a file on the server instead",
		clear(`form[aria-label="New location"] input[name="proxmox.url"]`),
		chromedp.SendKeys(form+`//input[@name="proxmox.url"]`, pve.URL()),
		clear(`form[aria-label="New location"] input[name="proxmox.token_id"]`),
		chromedp.SendKeys(form+`//input[@name="proxmox.token_id"]`, pve.TokenID()),
		choose(`form[aria-label="New location"] select[name=secret_from]`, "file"),
		chromedp.WaitNotPresent(form+`//input[@name="proxmox.token_secret"]`),
		// The secret typed before is not carried over into the file's field.
		chromedp.WaitVisible(form+`//input[@name="proxmox.token_secret_file"][not(@type="password")]`),
		chromedp.ActionFunc(func(c context.Context) error {
			var v string
			if err := chromedp.Value(form+`//input[@name="proxmox.token_secret_file"]`, &v).Do(c); err != nil || v != "" {
				return fmt.Errorf("the file's field holds %q (%v); want it empty", v, err)
			}
			return nil
		}),
		chromedp.SendKeys(form+`//input[@name="proxmox.token_secret_file"]`, secret),
		chromedp.SendKeys(form+`//input[@name="proxmox.tls_fingerprint"]`, pve.Fingerprint()),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		chromedp.WaitVisible(`//tr[@data-location="Frankfurt"]/td[@data-driver][normalize-space(.)="Proxmox VE"]`),
		chromedp.WaitVisible(fmt.Sprintf(`//tr[@data-location="Frankfurt"]/td[@data-settings][contains(., %q)][contains(., "secret from %s")]`, pve.URL(), secret)),
	)
	var fra struct {
		Driver  string
		Proxmox struct {
			TokenSecretFile   string `json:"token_secret_file"`
			TokenSecretStored bool   `json:"token_secret_stored"`
			TLSFingerprint    string `json:"tls_fingerprint"`
		}
	}
	s.call("GET", "/api/resources/locations/"+s.locations()["Frankfurt"].ID, s.admin, nil, 200, &fra)
	if fra.Driver != "proxmox" || fra.Proxmox.TokenSecretFile != secret || fra.Proxmox.TokenSecretStored || fra.Proxmox.TLSFingerprint != pve.Fingerprint() {
		t.Fatalf("the Proxmox location %+v", fra)
	}
	pedit := `//form[@aria-label="Edit location Frankfurt"]`
	run(t, ctx, "its settings offered again in whole, the secret's file kept, nothing sent on Cancel",
		chromedp.Click(`//button[@data-edit="Frankfurt"]`),
		chromedp.WaitVisible(pedit+`//input[@name="name"]`),
		chromedp.Click(pedit+`//label[contains(., "New Proxmox settings")]/input`),
		chromedp.WaitVisible(fmt.Sprintf(`%s//input[@name="proxmox.token_secret_file"][@value=%q]`, pedit, secret)),
		chromedp.Click(pedit+`//button[normalize-space(.)="Cancel"]`),
		chromedp.WaitNotPresent(pedit),
	)
	run(t, ctx, "a simulated location",
		chromedp.Click(`//button[normalize-space(.)="New location"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		choose(`form[aria-label="New location"] select[name=driver]`, "sim"),
		chromedp.WaitNotPresent(form+`//input[@name="proxmox.url"]`),
		clear(`form[aria-label="New location"] input[name=name]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "Lab"),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		chromedp.WaitVisible(`//tr[@data-location="Lab"]/td[@data-driver][normalize-space(.)="simulated"]`),
	)
	lab, ok := s.locations()["Lab"]
	if !ok || lab.Driver != "sim" || lab.Default {
		t.Fatalf("the location Lab: %+v", lab)
	}
	edit := `//form[@aria-label="Edit location Lab"]`
	run(t, ctx, "rename it in place",
		chromedp.Click(`//button[@data-edit="Lab"]`),
		chromedp.WaitVisible(`form[aria-label="Edit location Lab"] input[name=name]:focus`, chromedp.ByQuery),
		clear(`form[aria-label="Edit location Lab"] input[name=name]`),
		chromedp.SendKeys(edit+`//input[@name="name"]`, "Lab West"),
		chromedp.Click(edit+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(edit),
		chromedp.WaitVisible(`//tr[@data-location="Lab West"]`),
	)
	if l := s.locations()["Lab West"]; l.ID != lab.ID {
		t.Fatalf("the renamed location %+v; want the id %s", l, lab.ID)
	}
	var p struct{ ID string }
	s.call("POST", "/api/resources/ip-pools", s.admin, map[string]any{"name": "west", "cidr": "203.0.113.0/24", "gateway": "203.0.113.1", "location_id": lab.ID}, 201, &p)
	run(t, ctx, "its delete refused while a pool belongs to it",
		confirm(`//tr[@data-location="Lab West"]`, "delete-location"),
		chromedp.WaitVisible(`//tr[@data-location-more="Lab West"]//div[@role="alert"][strong]/p[contains(., "1 IP pool")]`),
		shot("locations"),
	)
	s.call("DELETE", "/api/resources/ip-pools/"+p.ID, s.admin, nil, 204, nil)
	run(t, ctx, "deleted once the pool is gone",
		confirm(`//tr[@data-location="Lab West"]`, "delete-location"),
		chromedp.WaitNotPresent(`//tr[@data-location="Lab West"]`),
	)
	if _, ok := s.locations()["Lab West"]; ok {
		t.Fatal("the location is still there")
	}
}

// TestConsolePlaceInALocation: with a second (simulated) location synced, an operator
// makes a plan in it, whose template list offers that location's templates alone; the
// plans list shows its location; a machine made from it on the operator's create form
// is said to be made there, and the machines list and its page show its location; a
// machine of its own sizes made in the location chosen on the form (its templates
// alone offered) is there too.
func TestConsolePlaceInALocation(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	var berlin location
	s.call("POST", "/api/resources/locations", s.admin, map[string]any{"name": "Berlin", "driver": "sim"}, 201, &berlin)
	// The sync records the location's nodes and templates, as it does every interval.
	s.call("POST", "/api/virt/sync", s.admin, nil, 200, nil)
	tpl := "tpl-debian-12@" + berlin.ID
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/plans", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="New plan"]`
	run(t, ctx, "a plan in Berlin, allowing one of Berlin's templates",
		chromedp.Click(`//button[normalize-space(.)="New plan"]`),
		chromedp.WaitVisible(form+`//input[@name="name"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "berlin-small"),
		chromedp.SetValue(form+`//input[@name="cpu_cores"]`, "1"),
		chromedp.SetValue(form+`//input[@name="memory_mb"]`, "1024"),
		chromedp.SetValue(form+`//input[@name="disk_gb"]`, "10"),
		chromedp.SetValue(form+`//input[@name="ipv4"]`, "0"),
		chromedp.WaitReady(form+`//input[@name="allowed_templates"][@value="tpl-debian-12"]`),
		chromedp.WaitReady(form+fmt.Sprintf(`//select[@name="location_id"]/option[@value=%q]`, berlin.ID)),
		choose(`form[aria-label="New plan"] select[name=location_id]`, berlin.ID),
		chromedp.WaitNotPresent(form+`//input[@name="allowed_templates"][@value="tpl-debian-12"]`),
		chromedp.Click(form+fmt.Sprintf(`//input[@name="allowed_templates"][@value=%q]`, tpl)),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-plan="berlin-small"]/td[@data-location][normalize-space(.)="Berlin"]`),
	)
	p := s.plans()["berlin-small"]
	if len(p.AllowedTemplates) != 1 || p.AllowedTemplates[0] != tpl {
		t.Fatalf("the plan %+v; want it allowing %s", p, tpl)
	}
	var got struct {
		LocationID string `json:"location_id"`
	}
	s.call("GET", "/api/resources/plans/"+p.ID, s.admin, nil, 200, &got)
	if got.LocationID != berlin.ID {
		t.Fatalf("the plan's location %q; want %s", got.LocationID, berlin.ID)
	}
	mform := `//form[@aria-label="New machine"]`
	run(t, ctx, "a machine of the plan, made in Berlin",
		chromedp.Navigate(s.srv.Base+"/admin/machines"),
		chromedp.WaitVisible(`//table[@data-machines]//td[@data-location][normalize-space(.)="default"]`),
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="plan_id"]/option[@value=%q][contains(., "in Berlin")]`, p.ID)),
		chromedp.WaitReady(mform+`//select[@name="tenant_id"]/option[normalize-space(.)="mine"]`),
		choose(`form[aria-label="New machine"] select[name=plan_id]`, p.ID),
		chromedp.WaitVisible(mform+`//p[@data-plan-location][contains(., "Berlin")]`),
		chromedp.WaitNotPresent(mform+`//select[@name="location_id"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="template_id"]/option[@value=%q]`, tpl)),
		chromedp.WaitNotPresent(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.SendKeys(mform+`//input[@name="name"]`, "in-berlin"),
		chromedp.Click(mform+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[td/a[normalize-space(.)="in-berlin"]]/td[@data-location][normalize-space(.)="Berlin"]`),
		shot("machines-location"),
	)
	run(t, ctx, "its page says where it is",
		chromedp.Click(`//tr/td/a[normalize-space(.)="in-berlin"]`),
		chromedp.WaitVisible(`//dl[@class="facts"]/dd[@data-location][normalize-space(.)="Berlin"]`),
		chromedp.NavigateBack(),
	)
	run(t, ctx, "a machine of its own sizes in the location chosen",
		chromedp.Click(`//button[normalize-space(.)="New machine"]`),
		chromedp.WaitReady(mform+`//select[@name="plan_id"]/option[@value=""][normalize-space(.)="custom sizes"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="location_id"]/option[@value=%q]`, berlin.ID)),
		chromedp.WaitReady(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		choose(`form[aria-label="New machine"] select[name=location_id]`, berlin.ID),
		chromedp.WaitNotPresent(mform+`//select[@name="template_id"]/option[@value="tpl-debian-12"]`),
		chromedp.WaitReady(mform+fmt.Sprintf(`//select[@name="template_id"]/option[@value=%q]`, tpl)),
		chromedp.SendKeys(mform+`//input[@name="name"]`, "own-berlin"),
		chromedp.SendKeys(mform+`//input[@name="cpu_cores"]`, "1"),
		chromedp.SendKeys(mform+`//input[@name="memory_mb"]`, "512"),
		chromedp.SendKeys(mform+`//input[@name="disk_gb"]`, "10"),
		chromedp.Click(mform+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[td/a[normalize-space(.)="own-berlin"]]/td[@data-location][normalize-space(.)="Berlin"]`),
	)
	var ms struct {
		Items []struct {
			Name       string
			LocationID string `json:"location_id"`
			PlanID     string `json:"plan_id"`
		}
	}
	s.call("GET", "/api/resources/machines?limit=200", s.admin, nil, 200, &ms)
	planned, own := false, false
	for _, m := range ms.Items {
		if m.Name == "in-berlin" {
			planned = m.LocationID == berlin.ID && m.PlanID == p.ID
		}
		if m.Name == "own-berlin" {
			own = m.LocationID == berlin.ID && m.PlanID == ""
		}
	}
	if !planned || !own {
		t.Fatalf("no in-berlin of the plan and own-berlin of its own sizes in %s among %+v", berlin.ID, ms.Items)
	}
}
