package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles are the pages a reader of the repository reads: README.md, BENCHMARKS.md,
// every page of docs/ and the load harness's README.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "BENCHMARKS.md", "bench/README.md"}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		files = append(files, rel)
	}
	return files
}

// mdLink matches a markdown link or image, [text](target) with an optional "title",
// and a reference definition, [label]: target.
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)`)

// TestLinksStayInRepository: every relative link of the reader's pages leads to a file
// of this repository that exists, and an anchor to a heading the page has. A link that
// climbs out of the repository (to notes beside it, which a clone does not have) fails,
// however it is spelt; links to other sites are left alone.
func TestLinksStayInRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // page (relative to root) → its heading anchors
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := anchors[rel]; ok {
			return a
		}
		text, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		anchors[rel] = headingAnchors(string(text))
		return anchors[rel]
	}
	checked := 0
	for _, page := range markdownFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range outsideCode(string(text)) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1] + m[2]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				where := page + ":" + strconv.Itoa(n+1)
				path, anchor, _ := strings.Cut(target, "#")
				dest := page // a bare #anchor is on the page itself
				if path != "" {
					abs := filepath.Clean(filepath.Join(root, filepath.Dir(page), path))
					rel, err := filepath.Rel(root, abs)
					if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(path) {
						t.Errorf("%s: %q leads out of the repository: write what the reader needs into docs/", where, target)
						continue
					}
					if _, err := os.Stat(abs); err != nil {
						t.Errorf("%s: %q: no such file in the repository", where, target)
						continue
					}
					dest = rel
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
					t.Errorf("%s: %q: %s has no heading with the anchor #%s", where, target, dest, anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found: the link pattern is broken")
	}
}

// outsideCode returns the page's lines with those inside fenced code blocks and inline
// code spans blanked, so that a shell command or a code span is not taken for a link.
func outsideCode(md string) []string {
	lines := strings.Split(md, "\n")
	fence := false
	span := regexp.MustCompile("`[^`]*`")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			lines[i] = ""
			continue
		}
		if fence {
			lines[i] = ""
			continue
		}
		lines[i] = span.ReplaceAllString(l, "``")
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives a page's headings: lower case, spaces
// to hyphens, punctuation other than - and _ dropped, and -1, -2, ... on repeats.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range outsideCodeKeepSpans(md) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// outsideCodeKeepSpans is outsideCode without blanking code spans (a heading's code
// span is part of its anchor: `x` gives x).
func outsideCodeKeepSpans(md string) []string {
	lines := strings.Split(md, "\n")
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			lines[i] = ""
		} else if fence {
			lines[i] = ""
		}
	}
	return lines
}
