package cmdline

import (
	"iter"

	"github.com/spf13/cobra"
)

// Collect reads a list to its end, or its first n items when n > 0 (a list command's
// --limit). The list is never nil, so that JSON shows an empty one as [].
func Collect[T any](seq iter.Seq2[T, error], n int) ([]T, error) {
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

// LimitFlag adds --limit to a list command.
func LimitFlag(cmd *cobra.Command, n *int) {
	cmd.Flags().IntVar(n, "limit", 0, "show at most this many (0: all, page after page)")
}
