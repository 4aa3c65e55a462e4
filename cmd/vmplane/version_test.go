package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app"
)

// `vmplane version --json` prints exactly the four fields, with the stamped values and
// the Go release of the build.
func TestVersionJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %q: %v", out.String(), err)
	}
	want := map[string]string{"version": app.Version, "commit": app.Commit, "date": app.Date, "go": runtime.Version()}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// The plain form names all four on one line; an unknown flag exits 2.
func TestVersionText(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, s := range []string{app.Version, app.Commit, app.Date, runtime.Version()} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("%q lacks %q", out.String(), s)
		}
	}
	if code := run([]string{"version", "--yaml"}, &out, &errOut); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
}
