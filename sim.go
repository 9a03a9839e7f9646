package main

import (
	"context"
	"errors"
	"io"

	"go.uber.org/zap"
)

// runSim serves the PDD sandbox until ctx ends.
func runSim(ctx context.Context, cfg *config, args []string, logger *zap.Logger, stdout io.Writer) error {
	return errors.New("sim: not built yet")
}
