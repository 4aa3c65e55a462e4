package app

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The settings table of docs/configuration.md is the table of config.go, row for row: every setting
// with its variable, its flag and its default, and no row for a setting that does not
// exist. A default cell names the default as code (`1h`, `local-lvm`); a setting whose
// default is empty says in words what happens instead (none, generated, ...).
func TestSettingsTable(t *testing.T) {
	t.Parallel()
	rows := docSettings(t, settingsPage)
	var c Config
	for _, s := range c.table() {
		row, ok := rows[s.env]
		if !ok {
			t.Errorf(settingsPage+"'s settings table has no row for %s (--%s, default %q)", s.env, s.flag, s.defaultValue)
			continue
		}
		delete(rows, s.env)
		if row.flag != "--"+s.flag {
			t.Errorf(settingsPage+": %s is the flag %s; the table in config.go says --%s", s.env, row.flag, s.flag)
		}
		if !sameDefault(s.defaultValue, row.def) {
			t.Errorf(settingsPage+": %s defaults to %q; config.go says %q", s.env, row.def, s.defaultValue)
		}
	}
	for env := range rows {
		t.Errorf(settingsPage+"'s settings table has a row for %s, which is not a setting", env)
	}
}

// settingsPage is the page that lists every setting.
const settingsPage = "../docs/configuration.md"

type docRow struct{ flag, def string }

// docSettings reads the table under the header `| variable | flag | default | meaning |`:
// variable → its flag and the first code span of its default cell ("" when it has none).
func docSettings(t *testing.T, path string) map[string]docRow {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile("`([^`]*)`")
	rows := map[string]docRow{}
	in := false
	for line := range strings.SplitSeq(string(text), "\n") {
		if strings.HasPrefix(line, "| variable | flag | default | meaning |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Fatalf(settingsPage+" settings table: %q has fewer than four cells", line)
		}
		env, flag := code.FindStringSubmatch(cells[1]), code.FindStringSubmatch(cells[2])
		if env == nil || flag == nil {
			t.Fatalf(settingsPage+" settings table: %q does not name its variable and flag as code", line)
		}
		var def string
		if m := code.FindStringSubmatch(cells[3]); m != nil {
			def = m[1]
		}
		if _, dup := rows[env[1]]; dup {
			t.Errorf(settingsPage+" settings table: %s has two rows", env[1])
		}
		rows[env[1]] = docRow{flag: flag[1], def: def}
	}
	if len(rows) == 0 {
		t.Fatal(settingsPage + " has no settings table")
	}
	return rows
}

// sameDefault compares a default of config.go with the page's: the same text, or the
// same duration or number written another way (1h0m0s and 1h, 0.90 and 0.9).
func sameDefault(config, readme string) bool {
	if config == readme {
		return true
	}
	if a, err := time.ParseDuration(config); err == nil {
		b, err := time.ParseDuration(readme)
		return err == nil && a == b
	}
	if a, err := strconv.ParseFloat(config, 64); err == nil {
		b, err := strconv.ParseFloat(readme, 64)
		return err == nil && a == b
	}
	return false
}
