//go:build libs

package main

import (
	"context"
	"os"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kelseyhightower/envconfig"
	"github.com/sethvargo/go-password/password"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// env is the part of mailbot's environment the floor reads through
// envconfig.
type env struct {
	AppToken    string `envconfig:"SLACK_APP_TOKEN" required:"true"`
	BotToken    string `envconfig:"SLACK_BOT_TOKEN" required:"true"`
	OpsChannel  string `envconfig:"MAILBOT_OPS_CHANNEL" required:"true"`
	DatabaseURL string `envconfig:"MAILBOT_DATABASE_URL"`
}

func init() {
	setup = func() {
		logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.Lock(os.Stderr), zap.InfoLevel))
		var e env
		if err := envconfig.Process("", &e); err != nil {
			logger.Fatal("configuration", zap.Error(err))
		}
		if e.DatabaseURL != "" {
			conn, err := pgconn.Connect(context.Background(), e.DatabaseURL)
			if err != nil {
				logger.Fatal("database", zap.Error(err))
			}
			_ = conn.Close(context.Background()) // connecting once links and runs the client, no more
		}
		generate = func() string {
			p, err := password.Generate(16, 4, 2, false, false)
			if err != nil {
				logger.Error("password", zap.Error(err))
			}
			return p
		}
		logDone = func(domain string) { logger.Info("registered", zap.String("domain", domain)) }
	}
}
