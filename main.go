// Command mailbot administers mail domains and mailboxes of the PDD API from
// Slack, over Socket Mode; see README.md and ARCHITECTURE.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/providers"
)

// loadConfig reads mailbot's configuration for subcommand sub through
// lookup (os.LookupEnv, or a map in tests); MAILBOT_PROVIDER takes the
// provider table's names.
func loadConfig(lookup func(string) (string, bool), sub string) (*config.Config, error) {
	return config.Load(lookup, sub, providers.Rules())
}

// gcPercent is the garbage collector's target when GOGC is not set.
// mailbot's live heap is small (about 2 MiB), so Go's default of 100
// collects after every few hundred KiB of garbage: 16 collections in a
// burst of 500 commands. At 200 a burst costs 5 collections and about 15%
// less CPU, for 4 MiB more peak memory (BenchmarkRelease; docs/performance.md,
// Footprint). GOMEMLIMIT still bounds the heap in a container.
const gcPercent = 200

func main() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.LookupEnv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(report(err, os.Stderr))
}

// report writes err to stderr, one "mailbot: " line per line of it (and
// the usage after a usage error), and returns the exit status: 0 without
// an error, 2 for a *usageError, 1 for anything else (see docs/configuration.md).
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintln(stderr, "mailbot: "+line)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprint(stderr, "\n"+ue.usage)
		return 2
	}
	return 1
}

// run is mailbot. It reads the command line first, so that a usage error
// or a subcommand's --help never depends on the environment; then the
// environment through lookup (os.LookupEnv, or a map in tests), checking
// only what the subcommand reads; and it returns when the work is done or
// ctx is cancelled.
func run(ctx context.Context, args []string, lookup func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseArgs(args[1:], stdout)
	if err != nil || o.helped {
		return err
	}
	switch o.sub {
	case "help":
		return printHelp(stdout, o.topic)
	case "version":
		_, err := fmt.Fprintln(stdout, versionLine())
		return err
	}
	cfg, err := loadConfig(lookup, o.sub)
	if err != nil {
		return err
	}
	logger, err := subcommandLogger(cfg, o.sub, lookup, stdin, stdout, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = logger.Sync() }()
	for _, line := range cfg.Deprecations() {
		logger.Warn(line)
	}
	switch o.sub {
	case "shell":
		err = runShell(ctx, cfg, o.as, logger, stdin, stdout)
	case "sim":
		err = providers.Sim(ctx, providers.SimOptions{Providers: o.prov, Addr: o.addr, TLS: o.tls, Named: o.named}, logger, stdout)
	case "audit":
		err = runAudit(ctx, cfg, o.since, o.json, logger, stdout)
	default:
		err = runServe(ctx, cfg, logger, stdout)
	}
	return attribute(cfg, err)
}
