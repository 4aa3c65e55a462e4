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
	f(func(o *Options) { o.BaseURL = "http://a:1,http://b:1,http://c:1" }, "")
	f(func(o *Options) { o.BaseURL = "http://a:1,https://b" }, "")
	f(func(o *Options) { o.BaseURL = "http://a:1,ftp://b" }, `--url "ftp://b": want an http:// or https:// URL`)
	f(func(o *Options) { o.BaseURL, o.Connections = "http://a:1,http://b:1,http://c:1", 2 },
		"--connections 2 leaves some of the 3 URLs without a connection")
	f(func(o *Options) { o.Model, o.Rate = ModelOpen, -1 }, "--rate must be positive")
	f(func(o *Options) { o.Timeout = 2 * 60e9 }, "--timeout must not exceed 1m")
	f(func(o *Options) { o.Mix = "read=0" }, "--mix")
	f(func(o *Options) { o.LoginEmail = "a@b" }, "--login-email and --login-password go together")
}

func TestParseTargets(t *testing.T) {
	f := func(in string, want ...string) {
		t.Helper()
		ts, err := parseTargets(in)
		if err != nil {
			t.Fatalf("parseTargets(%q): got error %v; want %v", in, err, want)
		}
		var got []string
		for _, tg := range ts {
			got = append(got, tg.base+" "+tg.addr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseTargets(%q): got %v; want %v", in, got, want)
		}
	}
	f("http://127.0.0.1:8080", "http://127.0.0.1:8080 127.0.0.1:8080")
	f("http://10.0.0.1:8080/, https://lb.example , http://[::1]:81",
		"http://10.0.0.1:8080 10.0.0.1:8080", "https://lb.example lb.example:443", "http://[::1]:81 [::1]:81")

	bad := func(in, want string) {
		t.Helper()
		_, err := parseTargets(in)
		if err == nil || err.Error() != want {
			t.Fatalf("parseTargets(%q): got error %v; want %q", in, err, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("parseTargets(%q): got a multi-line error; want one line", in)
		}
	}
	bad("", `--url "": an empty URL in the list`)
	bad("http://a:1,,http://b:1", `--url "http://a:1,,http://b:1": an empty URL in the list`)
	bad("http://a:1,", `--url "http://a:1,": an empty URL in the list`)
	bad("http://a:1,ftp://b", `--url "ftp://b": want an http:// or https:// URL`)
	bad("http://a:1,127.0.0.1:8080", `--url "127.0.0.1:8080": want an http:// or https:// URL`)
	bad("http://a:1,http://", `--url "http://": no host`)
	bad("http://a:1,http://b c", `--url "http://b c": invalid character " " in host name`)
	bad("http://a:1,http://a:1/", `--url: http://a:1 given twice`)
	bad("http://a,http://a:80", `--url: http://a:80 given twice`)
	f("http://a:8080,https://a:8080", "http://a:8080 a:8080", "https://a:8080 a:8080")
}

// TestTenantOf: the workers of each target take every tenant in turn; with one target,
// worker i is tenant i mod tenants, as before.
func TestTenantOf(t *testing.T) {
	for i := range 10 {
		if got := tenantOf(i, 1, 4); got != i%4 {
			t.Fatalf("tenantOf(%d, 1, 4): got %d; want %d", i, got, i%4)
		}
	}
	seen := map[[2]int]bool{} // target, tenant
	for i := range 16 {
		seen[[2]int{i % 2, tenantOf(i, 2, 4)}] = true
	}
	if len(seen) != 8 {
		t.Fatalf("16 workers over 2 targets and 4 tenants cover %d (target, tenant) pairs; want all 8", len(seen))
	}
}
