package cli

import (
	"bufio"
	"fmt"
	"io"

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
