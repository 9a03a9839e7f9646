package bot

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewClient is the Slack Web API client of a bot token and an app-level
// Client is the Slack Web API client, as bot's constructors take it: its
// callers need not import slack-go.
type Client = slack.Client

// Auth is what Slack says of the bot's token (auth.test).
type Auth = slack.AuthTestResponse

// token, at apiURL (which ends in /), over hc.
func NewClient(botToken, appToken, apiURL string, hc *http.Client, logger *zap.Logger) *slack.Client {
	return slack.New(botToken, slack.OptionAppLevelToken(appToken), slack.OptionAPIURL(apiURL),
		slack.OptionHTTPClient(hc), slack.OptionLog(slackStdLog(logger)))
}

// NewSocket is the Socket Mode connection of api.
func NewSocket(api *slack.Client, logger *zap.Logger) *socketmode.Client {
	return socketmode.New(api, socketmode.OptionLog(slackStdLog(logger)))
}

// slackStdLog is slack-go's logger: warnings and worse only.
func slackStdLog(logger *zap.Logger) *log.Logger {
	return zap.NewStdLog(logger.Named("slack").WithOptions(zap.IncreaseLevel(zapcore.WarnLevel)))
}

// AuthError is a token Slack rejected.
type AuthError struct {
	Var  string // the variable holding the token
	Code string // Slack's error, such as invalid_auth
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s: Slack rejected the token (%s)", e.Var, e.Code)
}

// fatalAuthCodes are the auth errors that retrying cannot mend.
var fatalAuthCodes = map[string]bool{"invalid_auth": true, "account_inactive": true, "token_revoked": true, "not_authed": true, "not_allowed_token_type": true}

// slackCode is Slack's error code in err ("invalid_auth"), or "".
func slackCode(err error) string {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		return se.Err
	}
	return ""
}

// CheckAuth calls auth.test with the bot token until it succeeds, a token
// error says the token is bad, or ctx ends. Transient failures are retried.
func CheckAuth(ctx context.Context, api *slack.Client, logger *zap.Logger) (*slack.AuthTestResponse, error) {
	delay := 500 * time.Millisecond
	for {
		resp, err := api.AuthTestContext(ctx)
		if err == nil {
			return resp, nil
		}
		if code := slackCode(err); fatalAuthCodes[code] {
			return nil, &AuthError{Var: "SLACK_BOT_TOKEN", Code: code}
		}
		logger.Warn("auth.test failed, retrying", zap.Error(err), zap.Duration("retry_in", delay))
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("slack auth.test: %w", ctx.Err())
		case <-t.C:
		}
		delay = min(2*delay, 30*time.Second)
	}
}
