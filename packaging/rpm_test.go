package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// rpmOverrides is the rpm part of nfpm.yaml's overrides.
type rpmOverrides struct {
	Overrides struct {
		RPM struct {
			Depends []string `yaml:"depends"`
			Scripts struct {
				PreInstall  string `yaml:"preinstall"`
				PostInstall string `yaml:"postinstall"`
				PreRemove   string `yaml:"preremove"`
				PostRemove  string `yaml:"postremove"`
			} `yaml:"scripts"`
		} `yaml:"rpm"`
	} `yaml:"overrides"`
}

// rpmScripts are the rpm's maintainer scripts by rpm's names for them.
var rpmScripts = map[string]string{"preinstall": "rpm/pre", "postinstall": "rpm/post", "preuninstall": "rpm/preun", "postuninstall": "rpm/postun"}

// TestRpmConfig checks the rpm overrides of nfpm.yaml: its four scripts (rpm's own,
// not the Debian ones, which speak of purge and call adduser), executable, and the
// dependency on useradd.
func TestRpmConfig(t *testing.T) {
	raw, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c rpmOverrides
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	r := c.Overrides.RPM
	if !slices.Equal(r.Depends, []string{"/usr/sbin/useradd"}) {
		t.Errorf("rpm depends = %q; want /usr/sbin/useradd (the %%pre runs it; without the override the rpm would require adduser)", r.Depends)
	}
	got := map[string]string{"preinstall": r.Scripts.PreInstall, "postinstall": r.Scripts.PostInstall,
		"preuninstall": r.Scripts.PreRemove, "postuninstall": r.Scripts.PostRemove}
	for name, want := range rpmScripts {
		if got[name] != "packaging/"+want {
			t.Errorf("rpm %s = %q; want packaging/%s", name, got[name], want)
		}
		fi, err := os.Stat(want)
		if err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: %v, mode %v; want an executable script", want, err, fi)
		}
	}
}

// commands is a script's lines without comments.
func commands(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

// TestRpmMaintainerScripts: %pre creates the group and user when missing; %preun stops
// the service only on erase ($1 = 0), not on upgrade; nothing removes the data
// directory or the user (rpm has no purge). Each script is valid sh (sh -n).
func TestRpmMaintainerScripts(t *testing.T) {
	pre := commands(t, "rpm/pre")
	for _, want := range []string{"getent group vmplane", "groupadd --system vmplane", "getent passwd vmplane",
		"useradd --system --gid vmplane --no-create-home --home-dir /var/lib/vmplane"} {
		if !strings.Contains(pre, want) {
			t.Errorf("rpm/pre lacks %q", want)
		}
	}
	if preun := commands(t, "rpm/preun"); !strings.Contains(preun, `if [ "$1" -eq 0 ]`) || !strings.Contains(preun, "systemctl stop vmplane.service") {
		t.Errorf("rpm/preun does not stop the service on erase only:\n%s", preun)
	}
	for _, s := range rpmScripts {
		body := commands(t, s)
		for _, bad := range []string{"rm ", "userdel", "groupdel", "/var/lib/vmplane"} {
			if strings.Contains(body, bad) && !(s == "rpm/pre" && bad == "/var/lib/vmplane") {
				t.Errorf("%s runs %q: an rpm erase never removes data or the user", s, bad)
			}
		}
		if out, err := exec.Command("sh", "-n", s).CombinedOutput(); err != nil {
			t.Errorf("sh -n %s: %v %s", s, err, out)
		}
	}
}

// TestRpmPackage inspects each dist/vmplane-*.rpm that `make dist rpm` built (it builds
// nothing itself) with rpm: name, version and architecture; the dependency; the files
// with their modes, owned by root, and the configuration a %config(noreplace); the four
// scripts, the ones of packaging/rpm.
func TestRpmPackage(t *testing.T) {
	rpms := builtPackages(t, "rpm", "vmplane-*.rpm", "rpm") // on Debian: apt-get install rpm
	name := regexp.MustCompile(`^vmplane-([0-9][A-Za-z0-9.+~]*)-1\.(x86_64|aarch64)\.rpm$`)
	for _, pkg := range rpms {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			m := name.FindStringSubmatch(filepath.Base(pkg))
			if m == nil {
				t.Fatalf("%s: name is not vmplane-VERSION-1.ARCH.rpm", pkg)
			}
			q := func(args ...string) string {
				out, err := exec.Command("rpm", append([]string{"-qp"}, append(args, pkg)...)...).Output()
				if err != nil {
					t.Fatalf("rpm -qp %s %s: %v", strings.Join(args, " "), pkg, err)
				}
				return strings.TrimSpace(string(out))
			}
			if got, want := q("--queryformat", "%{NAME} %{VERSION} %{RELEASE} %{ARCH}"), "vmplane "+m[1]+" 1 "+m[2]; got != want {
				t.Errorf("name, version, release, arch = %q; want %q", got, want)
			}
			var reqs []string
			for _, r := range strings.Split(q("--requires"), "\n") {
				if !strings.HasPrefix(r, "rpmlib(") {
					reqs = append(reqs, strings.TrimSpace(r))
				}
			}
			if !slices.Equal(reqs, []string{"/usr/sbin/useradd"}) {
				t.Errorf("requires %q; want /usr/sbin/useradd", reqs)
			}
			// One line per file: path, mode (octal), owner, group, flags (c: config, n: noreplace).
			lines := strings.Split(q("--queryformat", "[%{FILENAMES} %{FILEMODES:octal} %{FILEUSERNAME} %{FILEGROUPNAME} %{FILEFLAGS:fflags}\n]"), "\n")
			files := map[string][]string{}
			for _, l := range lines {
				f := strings.Fields(l)
				if len(f) < 4 {
					t.Fatalf("unexpected line %q", l)
				}
				files[f[0]] = f[1:]
			}
			n := 0
			for _, want := range packaged {
				if want.debOnly {
					if _, ok := files[want.dst]; ok {
						t.Errorf("%s is in the rpm; it belongs to the .deb only", want.dst)
					}
					continue
				}
				n++
				f, ok := files[want.dst]
				if !ok {
					t.Errorf("%s missing from %q", want.dst, lines)
					continue
				}
				if got := octalPerm(t, f[0]); got != want.mode {
					t.Errorf("%s: mode %o; want %o", want.dst, got, want.mode)
				}
				if f[1] != "root" || f[2] != "root" {
					t.Errorf("%s: owned by %s:%s; want root:root", want.dst, f[1], f[2])
				}
				flags := ""
				if len(f) > 3 {
					flags = f[3]
				}
				if conf := strings.Contains(flags, "c") && strings.Contains(flags, "n"); conf != want.conffile {
					t.Errorf("%s: flags %q; %%config(noreplace) = %v wanted", want.dst, flags, want.conffile)
				}
			}
			if len(files) != n {
				t.Errorf("%d files %q; want the %d of the package", len(files), lines, n)
			}
			scripts := q("--scripts")
			for name, path := range rpmScripts {
				body, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(scripts, name+" scriptlet") || !strings.Contains(scripts, strings.TrimSpace(string(body))) {
					t.Errorf("the %s scriptlet is not %s:\n%s", name, path, scripts)
				}
			}
		})
	}
}

// octalPerm parses rpm's octal file mode (e.g. 100644) into its permission bits.
func octalPerm(t *testing.T, s string) os.FileMode {
	t.Helper()
	var v uint32
	for _, c := range s {
		if c < '0' || c > '7' {
			t.Fatalf("mode %q is not octal", s)
		}
		v = v*8 + uint32(c-'0')
	}
	return os.FileMode(v & 0o777)
}
