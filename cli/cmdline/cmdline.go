// Package cmdline is how the command-line client reads a command line and how a
// command ends. The grammar: a group that needs a subcommand, an unknown command or
// flag with the nearest names there are, a flag value in the user's words, a missing
// or empty positional argument, each a usage error; the flags many commands share
// (--wait and --timeout of a task, --limit of a list). The end: the exit status (0 done,
// 1 failed, 2 a usage error, or an ExitError's) and the error in one line, an API
// error as its code and detail; Ctrl-C ends a command as interrupted.
package cmdline

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// UsageError is a command line that does not parse: the command's runner prints it on
// one line and exits with status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a message of fmt.Errorf's making.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// UnknownCommand is the usage error of a command name cmd does not have, with the
// nearest names it has.
func UnknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	// cobra only sets the distance itself on the way to its own error, which the
	// groups' RunE replaces.
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return UsageError{errors.New(msg)}
}

// FlagError is a flag that does not parse, as a usage error in the user's words: an
// unknown flag with the nearest ones the command has, a value with what the flag wants
// (not strconv's message). It is the root's flag error function.
func FlagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		if s := SimilarFlags(cmd.Flags(), unknown.GetSpecifiedName()); len(s) > 0 {
			return Usagef("%v; did you mean %s?", err, strings.Join(s, " or "))
		}
		return UsageError{err}
	}
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		want := map[string]string{"int": "a whole number", "int64": "a whole number", "uint": "a whole number 0 or above",
			"float64": "a number", "bool": "true or false", "duration": "a duration such as 30s, 5m or 1h"}[invalid.GetFlag().Value.Type()]
		if want != "" {
			return Usagef("--%s %q: want %s", invalid.GetFlag().Name, invalid.GetValue(), want)
		}
	}
	return UsageError{err}
}

// SimilarFlags are the flags of fs (a command's: its own and the global ones) whose
// names are within two edits of name, or start with it.
func SimilarFlags(fs *pflag.FlagSet, name string) []string {
	var out []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if editDistance(name, f.Name) <= 2 || strings.HasPrefix(f.Name, name) {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// editDistance is the Levenshtein distance of a and b (bytes: flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Group makes cmd a command that only holds subcommands: given none, or an unknown
// one, it is a usage error (exit 2) with the list of subcommands.
func Group(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return UnknownCommand(c, args[0])
		}
		c.SetOut(c.ErrOrStderr())
		_ = c.Usage()
		return Usagef("%s needs a subcommand", c.CommandPath())
	}
	cmd.AddCommand(subs...)
	return cmd
}

// Args checks a command's positional arguments, as a usage error. An empty one (an
// unset shell variable, "") is one too: sent, it would name another route.
func Args(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if len(a) != n {
			return Usagef("usage: %s %s", cmd.CommandPath(), names)
		}
		return nonEmpty(cmd, a, names)
	}
}

// MaxArgs checks that a command has at most n positional arguments, none of them
// empty, as a usage error.
func MaxArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if len(a) > n {
			return Usagef("usage: %s %s", cmd.CommandPath(), names)
		}
		return nonEmpty(cmd, a, names)
	}
}

func nonEmpty(cmd *cobra.Command, a []string, names string) error {
	for i, v := range a {
		if strings.TrimSpace(v) == "" {
			name := "argument " + strconv.Itoa(i+1)
			if f := strings.Fields(names); i < len(f) {
				name = strings.Trim(f[i], "[].")
			}
			return Usagef("%s: %s is empty (usage: %s %s)", cmd.CommandPath(), name, cmd.CommandPath(), names)
		}
	}
	return nil
}

// Changed tells whether the command line set flag name (to any value, even its
// default), which a flag's value alone cannot tell.
func Changed(cmd *cobra.Command, name string) bool {
	f := cmd.Flags().Lookup(name)
	return f != nil && f.Changed
}
