package packaging

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestLicence: the project is under the Apache License 2.0, and every place that says
// so agrees: LICENSE at the root holds the licence's text, the package's metadata names
// it and a real maintainer, and the package's copyright file is Debian's
// machine-readable format with Apache-2.0 for every file (no "All rights reserved",
// which would forbid anyone to run it).
func TestLicence(t *testing.T) {
	text, err := os.ReadFile("../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("LICENSE lacks %q: not the Apache License 2.0", want)
		}
	}

	raw, err := os.ReadFile("nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		License    string `yaml:"license"`
		Maintainer string `yaml:"maintainer"`
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.License != "Apache-2.0" {
		t.Errorf("nfpm.yaml: license %q; want Apache-2.0", meta.License)
	}
	// Name <address>, with an address that can receive mail (.invalid and .example cannot).
	m := regexp.MustCompile(`^[^<>]+ <[^@<>\s]+@([^@<>\s]+)>$`).FindStringSubmatch(meta.Maintainer)
	if m == nil || strings.HasSuffix(m[1], ".invalid") || strings.HasSuffix(m[1], ".example") {
		t.Errorf("nfpm.yaml: maintainer %q; want a real \"Name <address>\"", meta.Maintainer)
	}

	copyright, err := os.ReadFile("deb/copyright")
	if err != nil {
		t.Fatal(err)
	}
	c := string(copyright)
	for _, re := range []string{
		`(?m)\AFormat: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/$`,
		`(?m)^Files: \*\nCopyright: .+\nLicense: Apache-2\.0$`,
		`(?m)^License: Apache-2\.0\n Licensed under the Apache License, Version 2\.0`,
		`/usr/share/common-licenses/Apache-2\.0`,
	} {
		if !regexp.MustCompile(re).MatchString(c) {
			t.Errorf("deb/copyright does not match %s:\n%s", re, c)
		}
	}
	if strings.Contains(strings.ToLower(c), "all rights reserved") {
		t.Errorf("deb/copyright still says all rights reserved")
	}
}
