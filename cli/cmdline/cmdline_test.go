package cmdline

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/vmplane/vmplane/client"
)

func TestSimilarFlags(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	for _, name := range []string{"tenant", "template", "timeout", "token"} {
		fs.String(name, "", "")
	}
	fs.String("hidden", "", "")
	_ = fs.MarkHidden("hidden")
	f := func(name string, want ...string) {
		t.Helper()
		if got := SimilarFlags(fs, name); !slices.Equal(got, want) {
			t.Errorf("SimilarFlags(%q): got %v; want %v", name, got, want)
		}
	}
	f("tenat", "--tenant")
	f("te", "--template", "--tenant")
	f("hiden")
	f("nothing-near")
}

func TestDescribe(t *testing.T) {
	f := func(err error, want string) {
		t.Helper()
		if got := Describe(err); got != want {
			t.Errorf("Describe(%v): got %q; want %q", err, got, want)
		}
	}
	f(&client.Error{Code: "not_found", Detail: "no machine m-1"}, "not_found: no machine m-1")
	f(fmt.Errorf("creating: %w", &client.Error{Code: "invalid_request", Detail: "bad body",
		Fields: []client.FieldError{{Field: "name", Message: "required"}, {Field: "cores", Message: "at most 64"}}}),
		"invalid_request: bad body (name: required; cores: at most 64)")
	f(&client.Error{Code: "invalid_request", Detail: "name: required",
		Fields: []client.FieldError{{Field: "name", Message: "required"}}}, "invalid_request: name: required")
	f(errors.New("two\nlines"), "two lines")
}
