package bench

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseWeights(t *testing.T) {
	known := []string{"read", "power", "write", "login"}
	f := func(in string, want []Weight) {
		t.Helper()
		got, err := ParseWeights(in, known)
		if err != nil {
			t.Fatalf("ParseWeights(%q): got error %v; want %v", in, err, want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseWeights(%q): got %v; want %v", in, got, want)
		}
	}
	f("read=70,power=10,write=20,login=0", []Weight{{"read", 70}, {"power", 10}, {"write", 20}, {"login", 0}})
	f(" write = 5 , read=1 ", []Weight{{"read", 1}, {"power", 0}, {"write", 5}, {"login", 0}})
	f("login=3,", []Weight{{"read", 0}, {"power", 0}, {"write", 0}, {"login", 3}})

	bad := func(in, wantErr string) {
		t.Helper()
		_, err := ParseWeights(in, known)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("ParseWeights(%q): got error %v; want one containing %q", in, err, wantErr)
		}
	}
	bad("read=0,power=0", "at least one weight must be positive")
	bad("", "at least one weight must be positive")
	bad("read", "want name=weight")
	bad("reed=1", `unknown name "reed"`)
	bad("read=1,read=2", "given twice")
	bad("read=-1", "integer 0..1000000")
	bad("read=x", "integer 0..1000000")
}

func TestChooserFollowsWeights(t *testing.T) {
	c := newChooser([]int{70, 0, 20, 10})
	counts := make([]int, 4)
	for r := range uint64(len(c.table) * 10) {
		counts[c.pick(r)]++
	}
	total := len(c.table) * 10
	for i, want := range []int{70, 0, 20, 10} {
		if got := counts[i] * 100 / total; got != want {
			t.Errorf("choice %d: got %d%%; want %d%%", i, got, want)
		}
	}
	// Large weights are scaled down, and a tiny one next to them still gets picked.
	c = newChooser([]int{1_000_000, 1})
	if len(c.table) > 10001 {
		t.Fatalf("got a table of %d slots; want at most 10001", len(c.table))
	}
	if c.table[len(c.table)-1] != 1 {
		t.Fatalf("got no slot for the weight 1; want one")
	}
}

func TestParseActions(t *testing.T) {
	got, err := parseActions("reboot, start,stop")
	if err != nil || !reflect.DeepEqual(got, []string{"reboot", "start", "stop"}) {
		t.Fatalf("got %v, %v; want [reboot start stop], nil", got, err)
	}
	for _, in := range []string{"", "explode", "start,start"} {
		if _, err := parseActions(in); err == nil {
			t.Errorf("parseActions(%q): got no error; want one", in)
		}
	}
}

func TestValidate(t *testing.T) {
	f := func(mutate func(*Options), wantErr string) {
		t.Helper()
		o := DefaultOptions()
		mutate(&o)
		err := o.withDefaults().validate()
		if wantErr == "" {
			if err != nil {
				t.Fatalf("got error %v; want none", err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("got error %v; want one containing %q", err, wantErr)
		}
	}
	f(func(*Options) {}, "")
	f(func(o *Options) { o.Scenario = "crash" }, `unknown scenario "crash"`)
	f(func(o *Options) { o.Model = "half-open" }, `unknown model "half-open"`)
	f(func(o *Options) { o.BaseURL = "ftp://x" }, "want an http:// or https:// URL")
	f(func(o *Options) { o.Model, o.Rate = ModelOpen, -1 }, "--rate must be positive")
	f(func(o *Options) { o.Timeout = 2 * 60e9 }, "--timeout must not exceed 1m")
	f(func(o *Options) { o.Mix = "read=0" }, "--mix")
	f(func(o *Options) { o.LoginEmail = "a@b" }, "--login-email and --login-password go together")
}
