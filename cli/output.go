package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"
)

// Output formats of -o.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatYAML  = "yaml"
)

// printer writes a command's result in the format -o asks for: a table for people,
// JSON or YAML (the API's own field names) for scripts.
type printer struct {
	format string
	out    io.Writer
}

// print writes v: as JSON or YAML, or, for a table, by calling table.
func (p printer) print(v any, table func(w *tabwriter.Writer)) error {
	switch p.format {
	case formatJSON:
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.out, "%s\n", b)
		return err
	case formatYAML:
		b, err := toYAML(v)
		if err != nil {
			return err
		}
		_, err = p.out.Write(b)
		return err
	}
	w := tabwriter.NewWriter(p.out, 0, 0, 3, ' ', 0)
	table(w)
	return w.Flush()
}

// toYAML renders v as YAML with the field names and order of its JSON (the API's), not
// the Go field names a YAML encoder would use: JSON is YAML, so the JSON is read as a
// YAML tree and written out again in block style.
func toYAML(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	return yaml.Marshal(&n)
}

func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle | yaml.DoubleQuotedStyle
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && needsQuotes(n.Value) {
		n.Style |= yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// needsQuotes reports whether a string would read back as something else unquoted
// (a number, a boolean, null), also by a YAML 1.1 reader, for which yes, no, on and
// off are booleans; the encoder quotes what YAML syntax needs by itself.
func needsQuotes(s string) bool {
	switch strings.ToLower(s) {
	case "y", "yes", "n", "no", "on", "off":
		return true
	}
	var v any
	if yaml.Unmarshal([]byte(s), &v) != nil {
		return true
	}
	_, isString := v.(string)
	return !isString
}

// header writes a table's header row.
func header(w io.Writer, cols ...string) { row(w, cols...) }

// row writes one table row.
func row(w io.Writer, cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }

// field writes one line of a vertical (show) table.
func field(w io.Writer, name string, value string) { fmt.Fprintf(w, "%s:\t%s\n", name, value) }

func str(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func num(n int64) string { return strconv.FormatInt(n, 10) }

// limit is a quota limit, where -1 means none.
func limit(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return num(n)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func whenPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return when(*t)
}

// bytesIEC is a number of bytes with a binary unit: 512 B, 1.5 KiB, 20.0 GiB.
func bytesIEC(n float64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	i := -1
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + units[i:i+1] + "iB"
}

// percent is a fraction 0..1 as a percentage, "-" for a gap.
func percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v*100, 'f', 1, 64) + "%"
}
