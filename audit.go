package main

import (
	"context"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands/pgstore"
	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/console"
)

// runAudit prints the audit trail of MAILBOT_DATABASE_URL since the given
// time ago (console.PrintAudit). The dispatch checked that the URL is set.
// It only reads: no migration, so a role with SELECT on the tables
// suffices; and one attempt to connect (connect_timeout, 5 s unless the
// URL says otherwise).
func runAudit(ctx context.Context, cfg *config.Config, since time.Duration, asJSON bool, logger *zap.Logger, stdout io.Writer) error {
	st, err := pgstore.Open(ctx, cfg.DatabaseURL.Reveal(), logger.Named("store"), pgstore.ReadOnly(), pgstore.WithRetry(0))
	if err != nil {
		return databaseError(cfg, err)
	}
	defer st.Close()
	return console.PrintAudit(ctx, st.AuditPages, time.Now().Add(-since), asJSON, stdout)
}
