package config

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"go.uber.org/zap/zapcore"
)

// Secret is a token: it prints as <secret> wherever it might be logged.
type Secret string

func (s Secret) String() string                               { return "<secret>" }
func (s Secret) GoString() string                             { return "<secret>" }
func (s Secret) MarshalText() ([]byte, error)                 { return []byte("<secret>"), nil }
func (s Secret) Format(f fmt.State, verb rune)                { _, _ = io.WriteString(f, "<secret>") }
func (s Secret) Reveal() string                               { return string(s) }
func (s *Secret) Decode(value string) error                   { *s = Secret(value); return nil }
func (s Secret) MarshalLogObject(zapcore.ObjectEncoder) error { return nil }

// DatabaseURL is MAILBOT_DATABASE_URL: it prints with its password
// replaced by xxxxx, and reveal gives the URL itself, for the driver only.
type DatabaseURL string

func (d DatabaseURL) String() string                { return d.redacted() }
func (d DatabaseURL) GoString() string              { return strconv.Quote(d.redacted()) }
func (d DatabaseURL) MarshalText() ([]byte, error)  { return []byte(d.redacted()), nil }
func (d DatabaseURL) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, d.redacted()) }
func (d DatabaseURL) Reveal() string                { return string(d) }

// redacted is the URL with the password of its user information and any
// password parameter replaced by xxxxx.
func (d DatabaseURL) redacted() string {
	if d == "" {
		return ""
	}
	u, err := url.Parse(string(d))
	if err != nil {
		return "<not a URL, not shown>"
	}
	if q := u.Query(); len(q) > 0 {
		for k := range q {
			if strings.Contains(strings.ToLower(k), "password") {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
