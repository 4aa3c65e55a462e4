package kit

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Records whose names are unique ignoring case (tenants, plans, IP pools) keep an index
// key per folded name holding the record's id, claimed in the record's own batch.

// FoldName is name without surrounding white space, each letter replaced by the least
// rune it case-folds with (unicode.SimpleFold): two names that strings.EqualFold holds
// equal fold to the same string.
func FoldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, strings.TrimSpace(name))
}

// NameFree is a 409 conflict naming the field "name" when the index key of name holds
// a record other than self; kind says what the records are ("plan", "ip pool").
func NameFree(ctx context.Context, store persistence.Store, key []byte, kind, name, self string) error {
	holder, err := store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if string(holder) != self {
		e := apierr.New(apierr.ErrConflict, "%s %s is already named %q (names are unique, ignoring case)", kind, holder, name)
		e.Fields = []apierr.FieldError{apierr.Field("name", "is taken by %s %s", kind, holder)}
		return e
	}
	return nil
}
