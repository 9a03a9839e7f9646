package main

import (
	"context"
	"crypto/sha256"

	"io"
	"net"
	"net/http"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
)

// runServe runs the Slack bot until ctx ends: interface §1.
func runServe(ctx context.Context, cfg *config, args []string, logger *zap.Logger, stdout io.Writer) error {
	if len(args) > 0 {
		return errUsage
	}
	if err := cfg.requireServe(); err != nil {
		return err
	}
	reg := newRegistry()
	pdd, err := apiclient.New(cfg.PDDBaseURL, cfg.PDDToken.reveal(),
		apiclient.WithTimeout(cfg.PDDTimeout), apiclient.WithUserAgent("mailbot/"+versionLine()))
	if err != nil {
		return &configError{Var: "PDD_BASE_URL", Reason: err.Error()}
	}
	coreCfg := cfg.coreConfig()
	coreCfg.SigningKey = signingKey(cfg.SlackBotToken)
	coreCfg.Mention = bot.Mention
	core, err := commands.New(newMeteredAPI(pdd, reg), coreCfg, logger)
	if err != nil {
		return err
	}
	slackLog := zap.NewStdLog(logger.Named("slack").WithOptions(zap.IncreaseLevel(zapcore.WarnLevel)))
	api := slack.New(cfg.SlackBotToken.reveal(),
		slack.OptionAppLevelToken(cfg.SlackAppToken.reveal()),
		slack.OptionAPIURL(cfg.SlackAPIURL),
		slack.OptionHTTPClient(&http.Client{Timeout: 30 * time.Second}),
		slack.OptionLog(slackLog))
	sm := socketmode.New(api, socketmode.OptionLog(slackLog))
	b := bot.New(api, sm, core, bot.Config{
		OpsChannel:      cfg.OpsChannel,
		ApprovalTTL:     cfg.ApprovalTTL,
		Concurrency:     cfg.Concurrency,
		ShutdownTimeout: cfg.ShutdownTimeout,
		WorkTimeout:     workTimeout(cfg.PDDTimeout),
	}, logger, bot.NewMetrics(reg))

	if cfg.HTTPAddr != "" {
		ln, err := net.Listen("tcp", cfg.HTTPAddr)
		if err != nil {
			return &configError{Var: "MAILBOT_HTTP_ADDR", Reason: err.Error()}
		}
		srv := newHTTPServer(cfg.HTTPAddr, b.Ready, reg, logger)
		// The listener outlives the stop signal, so that /readyz answers
		// 503 while the work in flight finishes; it closes on return.
		httpCtx, stopHTTP := context.WithCancel(context.WithoutCancel(ctx))
		httpDone := make(chan error, 1)
		go func() { httpDone <- serveHTTP(httpCtx, srv, ln) }()
		defer func() { stopHTTP(); <-httpDone }()
		logger.Info("health and metrics listening", zap.String("addr", ln.Addr().String()))
	}

	auth, err := bot.CheckAuth(ctx, api, logger)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	logger.Info("starting", zap.String("team", auth.Team), zap.String("bot_user_id", auth.UserID),
		zap.String("approvals", cfg.Approvals), zap.Int("admins", len(cfg.Admins)))
	if err := b.Run(ctx); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// signingKey derives the key that signs pending approval requests from the
// bot token, so that requests survive a restart and work on any replica
// holding the same token. Rotating the token voids pending requests.
func signingKey(botToken secret) []byte {
	sum := sha256.Sum256([]byte("mailbot approvals v1\x00" + botToken.reveal()))
	return sum[:]
}

// workTimeout bounds one piece of work: the PDD attempts with their
// backoff, and the Slack calls around them.
func workTimeout(pdd time.Duration) time.Duration {
	return 3*pdd + 30*time.Second
}
