package main

import (
	"io"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/console"
)

// subcommandLogger is the logger of subcommand sub, writing to stderr as
// MAILBOT_LOG_LEVEL and MAILBOT_LOG_FORMAT say. The shell on a terminal is
// the exception (see shellLogSettings), and when stderr is that terminal
// its lines end in CRLF, since the console holds it in raw mode while it
// reads a line.
func subcommandLogger(cfg *config.Config, sub string, lookup func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) (*zap.Logger, error) {
	interactive := sub == "shell" && console.IsTerminal(stdin, stdout)
	level, format := shellLogSettings(cfg, sub == "shell", func(name string) bool {
		v, ok := lookup(name)
		return ok && strings.TrimSpace(v) != ""
	})
	if interactive {
		stderr = console.LogWriter(stderr)
	}
	return newLogger(level, format, stderr)
}

// shellLogSettings is the level and format of the shell's log. The
// shell's output is its replies, and its log usually shares the screen
// with them (stderr on the same terminal, even when stdin is a pipe): only
// errors are logged, in console format (a failed operation is told in its
// answer; a warning line over it would say it twice), unless
// MAILBOT_LOG_LEVEL or MAILBOT_LOG_FORMAT were set (isSet); for the other
// subcommands they apply as set.
func shellLogSettings(cfg *config.Config, interactive bool, isSet func(string) bool) (level, format string) {
	level, format = cfg.LogLevel, cfg.LogFormat
	if interactive && !isSet("MAILBOT_LOG_LEVEL") {
		level = "error"
	}
	if interactive && !isSet("MAILBOT_LOG_FORMAT") {
		format = "console"
	}
	return level, format
}

// newLogger builds a logger of level (debug, info, warn, error) and format
// (json, console) writing to w.
func newLogger(level, format string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, &config.Error{Var: "MAILBOT_LOG_LEVEL", Reason: err.Error()}
	}
	encCfg := zap.NewProductionEncoderConfig()
	encCfg.EncodeTime = zapcore.ISO8601TimeEncoder
	var enc zapcore.Encoder
	if format == "console" {
		encCfg.EncodeLevel = zapcore.CapitalLevelEncoder
		enc = zapcore.NewConsoleEncoder(encCfg)
	} else {
		enc = zapcore.NewJSONEncoder(encCfg)
	}
	sink := zapcore.Lock(zapcore.AddSync(w))
	return zap.New(zapcore.NewCore(enc, sink, lvl), zap.ErrorOutput(sink)), nil
}
