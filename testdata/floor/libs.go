//go:build libs

package main

import (
	"context"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kelseyhightower/envconfig"
	"github.com/sethvargo/go-password/password"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
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
		if key := os.Getenv("GOOGLE_CREDENTIALS"); key != "" {
			// Links x/oauth2's JWT flow as mailbot's Google adapter does;
			// the floor drives PDD, so it runs only when a key is set.
			conf, err := google.JWTConfigFromJSON([]byte(key))
			if err != nil {
				logger.Fatal("google", zap.Error(err))
			}
			_ = oauth2.ReuseTokenSource(nil, conf.TokenSource(context.Background()))
		}
		if e.DatabaseURL != "" {
			if err := useDatabase(e.DatabaseURL); err != nil {
				logger.Fatal("database", zap.Error(err))
			}
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

// useDatabase uses pgx as mailbot does, once: a pool, a transaction of a
// batch, rows collected and scanned into Go's types (text, text[],
// timestamptz, a NULL one, bigint, boolean). That links and runs the same
// parts of pgx, and no more.
func useDatabase(url string) error {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	type row struct {
		text  string
		texts []string
		at    time.Time
		null  *time.Time
		n     int64
		yes   bool
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var b pgx.Batch
		b.Queue("SELECT $1::text, $2::text[], now(), NULL::timestamptz, $3::bigint, true", "floor", []string{"a"}, int64(1)).
			Query(func(rows pgx.Rows) error {
				_, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
					var x row
					err := r.Scan(&x.text, &x.texts, &x.at, &x.null, &x.n, &x.yes)
					return x, err
				})
				return err
			})
		return tx.SendBatch(ctx, &b).Close()
	})
}
