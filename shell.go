package main

import (
	"context"
	"errors"
	"io"

	"go.uber.org/zap"
)

// runShell reads slash-command lines from stdin and prints the replies.
func runShell(ctx context.Context, cfg *config, args []string, logger *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	return errors.New("shell: not built yet")
}
