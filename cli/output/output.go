// Package output is how the command-line client writes what a command returns: in the
// format -o asks for (a table for people, JSON or YAML with the API's own field names
// for scripts), and the cells of its tables (times, sizes, counts, limits, fractions),
// written the same way by every verb.
package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"
)

// The formats of -o.
const (
	Table = "table"
	JSON  = "json"
	YAML  = "yaml"
)

// Formats are the formats of -o, the table first (the default).
var Formats = []string{Table, JSON, YAML}

// Printer writes a command's result to Out in Format (Table, JSON or YAML).
type Printer struct {
	Format string
	Out    io.Writer
}

// Print writes v: as JSON or YAML, or, for a table, by calling table.
func (p Printer) Print(v any, table func(w *tabwriter.Writer)) error {
	switch p.Format {
	case JSON:
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.Out, "%s\n", b)
		return err
	case YAML:
		b, err := toYAML(v)
		if err != nil {
			return err
		}
		_, err = p.Out.Write(b)
		return err
	}
	w := tabwriter.NewWriter(p.Out, 0, 0, 3, ' ', 0)
	table(w)
	return w.Flush()
}

// PrintItem writes one item of a stream (events as they come): JSON on a line of its
// own, YAML as a document of its own, or, for a table, line and a newline.
func (p Printer) PrintItem(v any, line string) error {
	switch p.Format {
	case JSON:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.Out, "%s\n", b)
		return err
	case YAML:
		b, err := toYAML(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(p.Out, "---\n%s", b)
		return err
	}
	_, err := fmt.Fprintln(p.Out, line)
	return err
}

// IsData reports whether format writes data alone (JSON or YAML): a command then
// prints no message of its own on standard output.
func IsData(format string) bool { return format == JSON || format == YAML }

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
