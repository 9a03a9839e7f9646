// Command mailbot administers mail domains and mailboxes of the PDD API from
// Slack, over Socket Mode; see README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mailbot:", err)
		os.Exit(1)
	}
}

// errUsage is a command line mailbot does not understand.
var errUsage = errors.New("usage: mailbot [serve|shell|sim|version|help]; see mailbot help")

// run is mailbot: it reads the arguments and the environment (through
// getenv), and returns when the work is done or ctx is cancelled.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub, rest := "serve", []string(nil)
	if len(args) > 1 {
		sub, rest = args[1], args[2:]
	}
	switch sub {
	case "help", "-h", "--help", "-help":
		return printHelp(stdout)
	case "version", "--version", "-version":
		_, err := fmt.Fprintln(stdout, versionLine())
		return err
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	logger, err := newLogger(cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { _ = logger.Sync() }()
	switch sub {
	case "serve":
		return runServe(ctx, cfg, rest, logger, stdout)
	case "shell":
		return runShell(ctx, cfg, rest, logger, stdin, stdout)
	case "sim":
		return runSim(ctx, cfg, rest, logger, stdout)
	}
	return errUsage
}
