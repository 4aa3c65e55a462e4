package terminal

import (
	"bufio"
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/cli/cmdline"
)

// TestAsk: the question goes to w, each answer is the next line trimmed, "" at the end.
func TestAsk(t *testing.T) {
	in := bufio.NewReader(strings.NewReader(" me@example.test \nlast"))
	var w strings.Builder
	for _, want := range []string{"me@example.test", "last", ""} {
		if got, err := Ask(in, &w, "E-mail: "); err != nil || got != want {
			t.Errorf("Ask: got %q, %v; want %q", got, err, want)
		}
	}
	if w.String() != strings.Repeat("E-mail: ", 3) {
		t.Errorf("questions: got %q", w.String())
	}
}

// TestPasswordFromStdin: the first line whole (blanks are part of a password), an
// empty one a usage error, and no terminal to ask on a usage error too.
func TestPasswordFromStdin(t *testing.T) {
	in := bufio.NewReader(strings.NewReader(" secret \r\n\n"))
	if pw, err := Password(in, true, nil, nil, ""); err != nil || pw != " secret " {
		t.Errorf("first line: got %q, %v", pw, err)
	}
	var ue cmdline.UsageError
	if _, err := Password(in, true, nil, nil, ""); !errors.As(err, &ue) {
		t.Errorf("empty line: got %v; want a usage error", err)
	}
	if _, err := Password(in, false, strings.NewReader(""), nil, "Password: "); !errors.As(err, &ue) {
		t.Errorf("no terminal: got %v; want a usage error", err)
	}
}
