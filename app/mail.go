package app

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/mailer"
)

// ResetPagePath is where a mailed password reset link points, under the public URL:
// the page that asks for the new password (served by the edge).
const ResetPagePath = "/reset-password"

// resetMail mails password reset links through the configured SMTP server; nil (resets
// refused) without one.
func resetMail(cfg Config) (auth.ResetMail, error) {
	if cfg.SMTPHost == "" {
		return nil, nil
	}
	s, err := mailer.New(cfg.mail())
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(cfg.PublicURL, "/")
	return func(ctx context.Context, u auth.User, token string, expires time.Time) error {
		return s.Send(ctx, mailer.Message{To: u.Email, Subject: "Reset your vmplane password", Text: resetText(base, u, token, expires)})
	}, nil
}

// resetText is the text of a reset mail: the link, and the same token for a terminal.
func resetText(base string, u auth.User, token string, expires time.Time) string {
	name := u.Name
	if name == "" {
		name = u.Email
	}
	return fmt.Sprintf(`Hello %s,

someone, we hope you, asked to reset the password of the account %s at %s.
Open this link before %s to choose a new password; it works once:

%s%s?token=%s

From a terminal, the same token works with:

vmplane password reset-confirm --token %s

If you did not ask, ignore this mail: your password stays as it is.
`, name, u.Email, base, expires.UTC().Format("15:04 MST, 2 January 2006"), base, ResetPagePath, url.QueryEscape(token), token)
}
