package uitest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// iso is an ISO image as the API answers it.
type iso struct {
	ID        string
	Name      string
	URL       string
	Status    string
	Error     *string
	SizeBytes int64   `json:"size_bytes"`
	TenantID  *string `json:"tenant_id"`
}

// isos are the ISO images, by name, as an operator lists them.
func (s *site) isos() map[string]iso {
	s.t.Helper()
	var p struct{ Items []iso }
	s.call("GET", "/api/resources/isos?limit=200", s.admin, nil, 200, &p)
	out := map[string]iso{}
	for _, i := range p.Items {
		out[i.Name] = i
	}
	return out
}

// TestConsoleISOs: an operator adds an image by its URL (a server on loopback) for
// one tenant and sees it turn ready without a reload; one whose checksum does not
// match turns failed with the reason shown; a file uploaded from the browser, its
// checksum computed in the page, turns ready with its size; and one is deleted.
func TestConsoleISOs(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	body := "an image fetched by its URL"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256([]byte(body))
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/isos", apptest.AdminEmail, apptest.AdminPassword)
	form := `//form[@aria-label="Add an image"]`
	byURL := func(name, checksum string) chromedp.Action {
		return chromedp.Tasks{
			chromedp.Click(`//button[normalize-space(.)="Add an image"]`),
			chromedp.WaitVisible(form + `//input[@name="url"]`),
			chromedp.SendKeys(form+`//input[@name="name"]`, name),
			chromedp.SendKeys(form+`//input[@name="url"]`, srv.URL+"/"+name+".iso"),
			chromedp.SendKeys(form+`//input[@name="checksum"]`, checksum),
		}
	}
	run(t, ctx, "an image by its URL for one tenant, ready without a reload",
		navCurrent("ISO images"),
		chromedp.WaitVisible(`//p[normalize-space(.)="No images yet."]`),
		chromedp.Evaluate(`window.notReloaded = true`, nil),
		byURL("fetched", "sha256:"+hex.EncodeToString(sum[:])),
		chromedp.WaitReady(form+`//select[@name="tenant_id"]/option[normalize-space(.)="mine only"]`),
		chromedp.SetValue(form+`//select[@name="tenant_id"]`, s.mine),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-iso="fetched"][@data-status="ready"]/td[normalize-space(.)="mine"]`),
	)
	if i := s.isos()["fetched"]; i.Status != "ready" || i.TenantID == nil || *i.TenantID != s.mine || i.SizeBytes != int64(len(body)) {
		t.Fatalf("the image %+v", i)
	}
	run(t, ctx, "a checksum that does not match: failed, the reason shown",
		byURL("mismatch", "sha256:"+strings.Repeat("0", 64)),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitVisible(`//tr[@data-iso="mismatch"][@data-status="failed"]//span[@data-iso-error]`),
	)
	file := filepath.Join(t.TempDir(), "upload.iso")
	content := []byte(strings.Repeat("an uploaded image ", 4096))
	if err := os.WriteFile(file, content, 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "a file uploaded, its checksum computed in the page",
		chromedp.Click(`//button[normalize-space(.)="Add an image"]`),
		chromedp.WaitVisible(form+`//input[@name="how"][@value="upload"]`),
		chromedp.Click(form+`//input[@name="how"][@value="upload"]`),
		chromedp.WaitVisible(form+`//input[@name="file"]`),
		chromedp.SendKeys(form+`//input[@name="name"]`, "uploaded"),
		chromedp.SetUploadFiles(form+`//input[@name="file"]`, []string{file}),
		chromedp.Click(form+`//button[@type="submit"]`),
		chromedp.WaitNotPresent(form),
		chromedp.WaitVisible(`//tr[@data-iso="uploaded"][@data-status="ready"]/td[@data-size][normalize-space(.)="72.0 KiB"]`),
		shot("isos"),
	)
	up := s.isos()["uploaded"]
	want := sha256.Sum256(content)
	var full struct{ Checksum string }
	s.call("GET", "/api/resources/isos/"+up.ID, s.admin, nil, 200, &full)
	if up.Status != "ready" || up.SizeBytes != int64(len(content)) || up.URL != "" || full.Checksum != "sha256:"+hex.EncodeToString(want[:]) {
		t.Fatalf("the uploaded image %+v, checksum %s", up, full.Checksum)
	}
	var notReloaded bool
	run(t, ctx, "no reload", chromedp.Evaluate(`window.notReloaded === true`, &notReloaded))
	if !notReloaded {
		t.Fatal("the page was reloaded")
	}
	run(t, ctx, "one deleted",
		confirm(`//tr[@data-iso="mismatch"]`, "delete-iso"),
		chromedp.WaitNotPresent(`//tr[@data-iso="mismatch"]`),
	)
	if _, ok := s.isos()["mismatch"]; ok {
		t.Fatal("the image mismatch is still there")
	}
}
