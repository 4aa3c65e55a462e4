// Package terminal is what the command-line client does with the person at the
// terminal: it asks (a line, or a password without echo, unless it comes from
// standard input) and shows a long wait on one line it rewrites.
package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/vmplane/vmplane/cli/cmdline"
)

// Is reports whether v (a command's standard input or error) is a terminal.
func Is(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Ask writes question on w (nothing when it is empty) and returns the answer: the next
// line of in without its surrounding blanks, "" at the end of the input.
func Ask(in *bufio.Reader, w io.Writer, question string) (string, error) {
	if question != "" {
		fmt.Fprint(w, question)
	}
	line, err := in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return strings.TrimSpace(line), err
	}
	return strings.TrimSpace(line), nil
}

// Password reads a password: from the first line of in with fromStdin, else from the
// terminal stdin without echo, after prompt on stderr. An empty first line, or no
// terminal to ask on, is a usage error.
func Password(in *bufio.Reader, fromStdin bool, stdin io.Reader, stderr io.Writer, prompt string) (string, error) {
	if fromStdin {
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		pw := strings.TrimRight(line, "\r\n")
		if pw == "" {
			return "", cmdline.Usagef("--password-stdin: standard input held no password")
		}
		return pw, nil
	}
	f, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", cmdline.Usagef("no terminal to ask for the password on: give --password-stdin")
	}
	fmt.Fprint(stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(stderr)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Progress rewrites one line of w every second, what and the time since start, until
// done closes.
func Progress(w io.Writer, what string, start time.Time, done <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			fmt.Fprintf(w, "\r\033[K%s: %s", what, time.Since(start).Round(time.Second))
		}
	}
}
