package main

import (
	"context"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/console"
	"github.com/mailbot/mailbot/providers"
)

// runShell is mailbot shell: the console over stdin and stdout. Without
// the selected provider's credentials it drives an embedded sandbox on
// loopback; with them it drives the real API, says so at start, and keeps
// its trail in MAILBOT_DATABASE_URL when that is set, as serve does. It
// acts as user as (a valid user ID: parseArgs checked).
func runShell(ctx context.Context, cfg *config.Config, as string, logger *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	if u := cfg.UnusedVars(); u != "" {
		fmt.Fprintln(stdout, "Warning: "+u+".")
	}
	router, stop, err := providers.ShellRouter(cfg, stdout)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer stop()
	store, closeStore, err := shellStore(ctx, cfg, logger, stdout)
	if err != nil || ctx.Err() != nil {
		return err
	}
	defer closeStore()
	return console.Run(ctx, console.Options{Router: router, Store: store, Core: cfg.CoreConfig(), As: as,
		Real: cfg.ProviderCredentialsSet(), Logger: logger}, stdin, stdout)
}

// shellStore is where the shell keeps requests and its trail: the
// database of MAILBOT_DATABASE_URL when the shell drives a real provider
// and one is set, so that what it does appears in mailbot audit;
// otherwise the process's memory.
func shellStore(ctx context.Context, cfg *config.Config, logger *zap.Logger, stdout io.Writer) (commands.Store, func(), error) {
	if !cfg.ProviderCredentialsSet() || cfg.DatabaseURL == "" {
		return memstore.New(memstore.Options{}), func() {}, nil
	}
	// openStore waits up to 30 s for a database that does not answer, and
	// the shell logs only warnings: say what it waits for.
	fmt.Fprintln(stdout, "Connecting to the database of MAILBOT_DATABASE_URL…")
	st, closeStore, err := openStore(ctx, cfg, logger)
	if err == nil && ctx.Err() == nil {
		fmt.Fprintln(stdout, "The audit trail goes to the database of MAILBOT_DATABASE_URL (mailbot audit prints it).")
	}
	return st, closeStore, err
}
