package cli

import (
	"bufio"
	"fmt"
	"io"
	"iter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// setup is the client and the printer of a command that calls the API; the printer
// first, so that a bad -o is a usage error before anything is sent.
func (a *app) setup() (*client.Client, output.Printer, error) {
	p, err := a.printer()
	if err != nil {
		return nil, p, err
	}
	c, err := a.client()
	return c, p, err
}

// collect reads a list to its end, or its first n items when n > 0. The list is
// never nil, so that JSON shows an empty one as [].
func collect[T any](seq iter.Seq2[T, error], n int) ([]T, error) {
	out := []T{}
	for it, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		if n > 0 && len(out) >= n {
			break
		}
	}
	return out, nil
}

// limitFlag adds --limit to a list command.
func limitFlag(cmd *cobra.Command, n *int) {
	cmd.Flags().IntVar(n, "limit", 0, "show at most this many (0: all, page after page)")
}

// newLineReader reads lines from r.
func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

// done says what a command did that has no record to print (a remote added, a record
// deleted). With -o json or yaml, standard output holds data only: nothing then.
func (a *app) done(format string, args ...any) {
	if output.IsData(a.format) {
		return
	}
	fmt.Fprintf(a.env.Stdout, format+"\n", args...)
}
