package main

import (
	"context"
	"errors"
	"io"

	"go.uber.org/zap"
)

// runServe runs the Slack bot until ctx ends.
func runServe(ctx context.Context, cfg *config, args []string, logger *zap.Logger, stdout io.Writer) error {
	if err := cfg.requireServe(); err != nil {
		return err
	}
	return errors.New("serve: not built yet")
}
