package main

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(getenvFrom(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SlackAPIURL != "https://slack.com/api/" || cfg.PDDBaseURL != "https://pddimp.yandex.ru" ||
		cfg.PDDTimeout != 15*time.Second || cfg.Approvals != "off" || cfg.ApprovalTTL != 24*time.Hour ||
		cfg.PasswordLength != 16 || cfg.HTTPAddr != ":8080" || cfg.LogLevel != "info" || cfg.LogFormat != "json" {
		t.Errorf("defaults = %+v", cfg)
	}
	if err := cfg.requireServe(); err == nil || !strings.Contains(err.Error(), "SLACK_APP_TOKEN") {
		t.Errorf("requireServe with nothing set = %v, want SLACK_APP_TOKEN named", err)
	}
}

func TestLoadConfigValues(t *testing.T) {
	cfg, err := loadConfig(getenvFrom(map[string]string{
		"SLACK_API_URL":           "http://127.0.0.1:9/api",
		"MAILBOT_ADMINS":          " U1AAA, W2BBB ,",
		"MAILBOT_DOMAINS":         "example.com,*.example.org",
		"MAILBOT_DEFAULT_DOMAIN":  "Example.COM.",
		"MAILBOT_PASSWORD_LENGTH": "20",
		"MAILBOT_APPROVALS":       "requests",
		"MAILBOT_OPS_CHANNEL":     "C0OPS",
		"PDD_TIMEOUT":             "2s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SlackAPIURL != "http://127.0.0.1:9/api/" {
		t.Errorf("SLACK_API_URL = %q, want the trailing slash added", cfg.SlackAPIURL)
	}
	if !reflect.DeepEqual(cfg.Admins, []string{"U1AAA", "W2BBB"}) {
		t.Errorf("admins = %q", cfg.Admins)
	}
	if cfg.DefaultDomain != "example.com" {
		t.Errorf("default domain = %q, want example.com", cfg.DefaultDomain)
	}
}

func TestLoadConfigErrorsNameTheVariable(t *testing.T) {
	const tok = "xoxb-123-SECRETVALUE"
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bot token in app token", map[string]string{"SLACK_APP_TOKEN": tok}, "SLACK_APP_TOKEN"},
		{"app token in bot token", map[string]string{"SLACK_BOT_TOKEN": "xapp-1-SECRETVALUE"}, "SLACK_BOT_TOKEN"},
		{"plain http Slack", map[string]string{"SLACK_API_URL": "http://slack.example.com/api/"}, "SLACK_API_URL"},
		{"plain http PDD", map[string]string{"PDD_BASE_URL": "http://pdd.example.com"}, "PDD_BASE_URL"},
		{"malformed duration", map[string]string{"PDD_TIMEOUT": "fifteen"}, "PDD_TIMEOUT"},
		{"negative duration", map[string]string{"MAILBOT_APPROVAL_TTL": "-1h"}, "MAILBOT_APPROVAL_TTL"},
		{"length 30", map[string]string{"MAILBOT_PASSWORD_LENGTH": "30"}, "MAILBOT_PASSWORD_LENGTH"},
		{"length 5", map[string]string{"MAILBOT_PASSWORD_LENGTH": "5"}, "MAILBOT_PASSWORD_LENGTH"},
		{"length not a number", map[string]string{"MAILBOT_PASSWORD_LENGTH": "long"}, "MAILBOT_PASSWORD_LENGTH"},
		{"unknown mode", map[string]string{"MAILBOT_APPROVALS": "sometimes"}, "MAILBOT_APPROVALS"},
		{"bad admin", map[string]string{"MAILBOT_ADMINS": "alice"}, "MAILBOT_ADMINS"},
		{"bad channel", map[string]string{"MAILBOT_OPS_CHANNEL": "#ops"}, "MAILBOT_OPS_CHANNEL"},
		{"bad domain pattern", map[string]string{"MAILBOT_DOMAINS": "exa mple.com"}, "MAILBOT_DOMAINS"},
		{"bad default domain", map[string]string{"MAILBOT_DEFAULT_DOMAIN": "-bad-.com"}, "MAILBOT_DEFAULT_DOMAIN"},
		{"bad http addr", map[string]string{"MAILBOT_HTTP_ADDR": "8080"}, "MAILBOT_HTTP_ADDR"},
		{"bad log level", map[string]string{"MAILBOT_LOG_LEVEL": "loud"}, "MAILBOT_LOG_LEVEL"},
		{"bad log format", map[string]string{"MAILBOT_LOG_FORMAT": "xml"}, "MAILBOT_LOG_FORMAT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadConfig(getenvFrom(tc.env))
			var ce *configError
			if !errors.As(err, &ce) {
				t.Fatalf("loadConfig = %v, want a *configError", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s", msg, tc.want)
			}
			if strings.Contains(msg, "SECRETVALUE") {
				t.Errorf("error %q shows the token", msg)
			}
		})
	}
}

func TestServeNeedsOpsChannelForApprovals(t *testing.T) {
	for _, mode := range []string{"requests", "all"} {
		env := map[string]string{
			"SLACK_APP_TOKEN": "xapp-1-A-1-x", "SLACK_BOT_TOKEN": "xoxb-1-x", "PDD_TOKEN": "p",
			"MAILBOT_ADMINS": "U1AAA", "MAILBOT_APPROVALS": mode,
		}
		cfg, err := loadConfig(getenvFrom(env))
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.requireServe()
		if err == nil || !strings.Contains(err.Error(), "MAILBOT_OPS_CHANNEL") || !strings.Contains(err.Error(), "MAILBOT_APPROVALS") {
			t.Errorf("mode %s without an ops channel: requireServe = %v, want an error naming both variables", mode, err)
		}
		env["MAILBOT_OPS_CHANNEL"] = "C0OPS"
		if cfg, _ := loadConfig(getenvFrom(env)); cfg.requireServe() != nil {
			t.Errorf("mode %s with an ops channel: %v", mode, cfg.requireServe())
		}
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := secret("xoxb-very-secret")
	for _, got := range []string{fmt.Sprint(s), fmt.Sprintf("%v %s %q %+v %#v", s, s, s, s, s), fmt.Sprintf("%+v", config{SlackBotToken: s})} {
		if strings.Contains(got, "very-secret") {
			t.Errorf("formatted secret: %q", got)
		}
	}
}

func TestHelpListsEveryVariable(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"mailbot", "help"}, getenvFrom(nil), strings.NewReader(""), &out, &out); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[config]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, def := f.Tag.Get("envconfig"), f.Tag.Get("default")
		line := ""
		for l := range strings.SplitSeq(out.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), name+" ") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("help does not list %s", name)
		} else if def != "" && !strings.Contains(line, def) {
			t.Errorf("help line %q lacks the default %q", line, def)
		}
	}
}

func TestVersionLine(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"mailbot", "version"}, getenvFrom(nil), strings.NewReader(""), &out, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "mailbot ") || !strings.Contains(got, "go1.") || strings.Count(got, "\n") != 1 {
		t.Errorf("version = %q, want one line \"mailbot <version> (<commit>, <go version>)\"", got)
	}
}
