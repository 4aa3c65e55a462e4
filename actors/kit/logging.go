package kit

import (
	"context"
	"log/slog"
)

// quietInfo is protoactor's log handler: its info lines ("[DeadLetter]" for every
// message to a stopped actor, "actor system started") are internal noise for an
// operator, so they go out at debug level; its warnings and errors stay as they are.
type quietInfo struct{ slog.Handler }

func demote(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func (h quietInfo) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, demote(l))
}

func (h quietInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h quietInfo) WithAttrs(as []slog.Attr) slog.Handler { return quietInfo{h.Handler.WithAttrs(as)} }
func (h quietInfo) WithGroup(n string) slog.Handler       { return quietInfo{h.Handler.WithGroup(n)} }
