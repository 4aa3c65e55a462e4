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

// nfpmConfig is the part of packaging/nfpm.yaml the tests check.
type nfpmConfig struct {
	Name     string        `yaml:"name"`
	Arch     string        `yaml:"arch"`
	Version  string        `yaml:"version"`
	Depends  []string      `yaml:"depends"`
	Contents []nfpmContent `yaml:"contents"`
	Scripts  struct {
		PostInstall string `yaml:"postinstall"`
		PreRemove   string `yaml:"preremove"`
		PostRemove  string `yaml:"postremove"`
	} `yaml:"scripts"`
}

// nfpmContent is one entry of the contents of nfpm.yaml.
type nfpmContent struct {
	Src      string `yaml:"src"`
	Packager string `yaml:"packager"`
	Dst      string `yaml:"dst"`
	Type     string `yaml:"type"`
	Expand   bool   `yaml:"expand"`
	FileInfo struct {
		Mode  os.FileMode `yaml:"mode"`
		Owner string      `yaml:"owner"`
		Group string      `yaml:"group"`
	} `yaml:"file_info"`
}

// packaged is what the package must install: destination, mode, and whether it is a
// conffile. The tests check both the nfpm configuration and a built .deb against it.
// debOnly marks what only the .deb installs (nfpm's packager: deb).
var packaged = []struct {
	dst      string
	mode     os.FileMode
	conffile bool
	debOnly  bool
}{
	{"/usr/bin/vmplane", 0o755, false, false},
	{"/lib/systemd/system/vmplane.service", 0o644, false, false},
	{"/etc/vmplane/vmplane.toml", 0o644, true, false},
	{"/usr/share/doc/vmplane/copyright", 0o644, false, false},
	{"/usr/share/doc/vmplane/third-party-notices", 0o644, false, false},
	{"/usr/share/lintian/overrides/vmplane", 0o644, false, true},
}

// TestNfpmConfig checks packaging/nfpm.yaml: the files at their destinations
// with their modes, owned by root, the configuration file a conffile that an upgrade
// does not replace, every source present in the repository (the binary comes from
// make dist), and the three maintainer scripts present and executable.
func TestNfpmConfig(t *testing.T) {
	raw, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c nfpmConfig
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("nfpm.yaml: %v", err)
	}
	if c.Name != "vmplane" || c.Arch != "${ARCH}" || c.Version != "${DEB_VERSION}" {
		t.Errorf("name, arch, version = %q, %q, %q; want vmplane and the variables the Makefile sets", c.Name, c.Arch, c.Version)
	}
	if !slices.Contains(c.Depends, "adduser") {
		t.Errorf("depends = %q; the postinst runs adduser", c.Depends)
	}
	if len(c.Contents) != len(packaged) {
		t.Errorf("%d contents; want %d", len(c.Contents), len(packaged))
	}
	for _, want := range packaged {
		i := slices.IndexFunc(c.Contents, func(e nfpmContent) bool {
			return e.Dst == want.dst
		})
		if i < 0 {
			t.Errorf("no content with dst %s", want.dst)
			continue
		}
		e := c.Contents[i]
		if e.FileInfo.Mode != want.mode || e.FileInfo.Owner != "root" || e.FileInfo.Group != "root" {
			t.Errorf("%s: mode %o owner %s:%s; want %o root:root", want.dst, e.FileInfo.Mode, e.FileInfo.Owner, e.FileInfo.Group, want.mode)
		}
		if want.debOnly != (e.Packager == "deb") || (e.Packager != "" && e.Packager != "deb") {
			t.Errorf("%s: packager %q; want deb only = %v", want.dst, e.Packager, want.debOnly)
		}
		if want.conffile != (e.Type == "config|noreplace") {
			t.Errorf("%s: type %q; conffile (config|noreplace) = %v wanted", want.dst, e.Type, want.conffile)
		}
		src := e.Src
		if strings.Contains(src, "${ARCH}") && !e.Expand {
			t.Errorf("%s: src %s uses ${ARCH} without expand: true (nfpm would not substitute it)", want.dst, src)
		}
		if strings.HasPrefix(src, "dist/") {
			continue // written by make dist, not in the repository
		}
		if _, err := os.Stat(filepath.Join("..", src)); err != nil {
			t.Errorf("%s: source: %v (sources are relative to the repository root)", want.dst, err)
		}
	}
	for name, path := range map[string]string{"postinstall": c.Scripts.PostInstall, "preremove": c.Scripts.PreRemove, "postremove": c.Scripts.PostRemove} {
		fi, err := os.Stat(filepath.Join("..", path))
		if path == "" || err != nil {
			t.Errorf("scripts.%s = %q: %v", name, path, err)
			continue
		}
		if fi.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable (mode %v)", path, fi.Mode())
		}
	}
}

// caseBranches splits a maintainer script's `case "$1" in` into its branches: the
// pattern of each (e.g. "purge", "remove | deconfigure") with the lines under it.
func caseBranches(t *testing.T, script string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	pattern := regexp.MustCompile(`^\s*([a-z*][a-z| -]*)\)\s*(.*)$`)
	out := map[string][]string{}
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		s := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(s, "case ") || s == "esac":
			cur = ""
		case pattern.MatchString(s) && !strings.Contains(s, "(") && !strings.HasPrefix(s, "#"):
			m := pattern.FindStringSubmatch(s)
			cur = strings.TrimSpace(m[1])
			out[cur] = append(out[cur], strings.TrimSuffix(m[2], ";;"))
		case cur != "":
			out[cur] = append(out[cur], s)
		}
	}
	return out
}

// TestMaintainerScripts checks what the maintainer scripts do with the user and the
// data: postinst creates the system user when missing; prerm stops the service on
// remove; postrm deletes /var/lib/vmplane and the user on purge and on nothing else.
func TestMaintainerScripts(t *testing.T) {
	post := caseBranches(t, "deb/postinst")
	if !containsLine(post["configure"], "adduser --system --group --no-create-home --home /var/lib/vmplane vmplane") ||
		!containsLine(post["configure"], "getent passwd vmplane") {
		t.Errorf("postinst configure does not create the missing user vmplane: %q", post["configure"])
	}
	if !containsLine(post["configure"], "systemctl daemon-reload") {
		t.Errorf("postinst configure does not reload systemd: %q", post["configure"])
	}
	pre := caseBranches(t, "deb/prerm")
	if !containsLine(pre["remove | deconfigure"], "systemctl stop vmplane.service") {
		t.Errorf("prerm does not stop the service on remove: %q", pre)
	}
	postrm := caseBranches(t, "deb/postrm")
	destructive := []string{"rm -rf /var/lib/vmplane", "deluser", "delgroup"}
	for _, d := range destructive {
		if !containsLine(postrm["purge"], d) {
			t.Errorf("postrm purge lacks %q", d)
		}
	}
	if len(postrm) < 2 {
		t.Fatalf("postrm has branches %q; want purge, remove and the others", postrm)
	}
	for branch, lines := range postrm {
		if branch == "purge" {
			continue
		}
		for _, d := range append(destructive, "rm -") {
			if containsLine(lines, d) {
				t.Errorf("postrm %s runs %q: only purge may remove data or the user", branch, d)
			}
		}
	}
}

func containsLine(lines []string, s string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, s) })
}

// TestDebPackage inspects each dist/vmplane_*.deb that `make dist deb` built (it builds
// nothing itself: cross-compiling takes minutes) with dpkg-deb: the control fields, the
// conffile, the maintainer scripts, and the files with their modes, owned by root.
func TestDebPackage(t *testing.T) {
	debs := builtPackages(t, "dpkg-deb", "vmplane_*.deb", "deb")
	name := regexp.MustCompile(`^vmplane_([0-9][A-Za-z0-9.+~]*)_(amd64|arm64)\.deb$`)
	for _, deb := range debs {
		t.Run(filepath.Base(deb), func(t *testing.T) {
			m := name.FindStringSubmatch(filepath.Base(deb))
			if m == nil {
				t.Fatalf("%s: name is not vmplane_VERSION_ARCH.deb with a Debian version", deb)
			}
			field := func(f string) string {
				out, err := exec.Command("dpkg-deb", "--field", deb, f).Output()
				if err != nil {
					t.Fatalf("dpkg-deb --field %s %s: %v", deb, f, err)
				}
				return strings.TrimSpace(string(out))
			}
			for f, want := range map[string]string{"Package": "vmplane", "Version": m[1], "Architecture": m[2], "Depends": "adduser"} {
				if got := field(f); got != want {
					t.Errorf("%s: %s = %q; want %q", deb, f, got, want)
				}
			}
			info, err := exec.Command("dpkg-deb", "--info", deb).Output()
			if err != nil {
				t.Fatalf("dpkg-deb --info: %v", err)
			}
			for _, s := range []string{"conffiles", "postinst", "prerm", "postrm"} {
				if !strings.Contains(string(info), s) {
					t.Errorf("%s: no control member %s in\n%s", deb, s, info)
				}
			}
			conf, err := exec.Command("dpkg-deb", "--info", deb, "conffiles").Output()
			if err != nil {
				t.Fatalf("dpkg-deb --info conffiles: %v", err)
			}
			var wantConf []string
			for _, p := range packaged {
				if p.conffile {
					wantConf = append(wantConf, p.dst)
				}
			}
			if got := strings.Fields(string(conf)); !slices.Equal(got, wantConf) {
				t.Errorf("%s: conffiles %q; want %q", deb, got, wantConf)
			}

			contents, err := exec.Command("dpkg-deb", "--contents", deb).Output()
			if err != nil {
				t.Fatalf("dpkg-deb --contents: %v", err)
			}
			files := map[string]string{} // path -> "mode owner"
			for _, line := range strings.Split(strings.TrimSpace(string(contents)), "\n") {
				f := strings.Fields(line) // -rw-r--r-- root/root 7973 2026-11-25 08:31 ./etc/...
				if len(f) < 6 {
					t.Fatalf("unexpected dpkg-deb --contents line %q", line)
				}
				if f[1] != "root/root" {
					t.Errorf("%s: %s owned by %s; want root/root", deb, f[5], f[1])
				}
				if !strings.HasPrefix(f[0], "d") {
					files[strings.TrimPrefix(f[5], ".")] = f[0]
				}
			}
			if len(files) != len(packaged) {
				t.Errorf("%s: %d files %q; want the %d of the package", deb, len(files), files, len(packaged))
			}
			for _, p := range packaged {
				if got, want := files[p.dst], "-"+p.mode.String()[1:]; got != want {
					t.Errorf("%s: %s mode %q; want %q", deb, p.dst, got, want)
				}
			}
		})
	}
}

// builtPackages returns the dist/ files matching pattern, or skips the test when tool is
// not installed or `make dist TARGET` has not run: the package tests build nothing.
func builtPackages(t *testing.T, tool, pattern, target string) []string {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s not installed", tool)
	}
	found, err := filepath.Glob(filepath.Join("..", "dist", pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Skipf("no dist/%s: run `make dist %s` first to check the package", pattern, target)
	}
	return found
}
