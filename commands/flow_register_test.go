package commands_test

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands"
)

// TestRegisterBurstTranscript fixes, byte for byte, what a register
// says wherever it goes: the reply (with its buttons' signed values),
// the ops notice, the audit entry and the log line, for a domain found
// registered already with its secrets, one registered now, one the
// register found existing (registered already, mail flowing) and an
// internationalised one waiting for its MX record, and one refused.
func TestRegisterBurstTranscript(t *testing.T) {
	existing := &fakeProvider{register: func(_ context.Context, domain string) (*apiclient.Domain, error) {
		if domain == "busy.example.com" {
			return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpRegister, Class: apiclient.ClassRefused,
				Reason: apiclient.ReasonExists, Code: "occupied", Message: "the domain is in use by another account", Attempts: 1}
		}
		if strings.HasPrefix(domain, "xn--") {
			return &apiclient.Domain{Name: domain, Status: pdd.StatusMXActivate, Meaning: pdd.Status(pdd.StatusMXActivate).Meaning(),
				Verified: true, Existed: true}, nil
		}
		return &apiclient.Domain{Name: domain, Status: pdd.StatusAdded, Meaning: pdd.Status(pdd.StatusAdded).Meaning(),
			Verified: true, MailFlows: true, Existed: true, Warnings: []string{"mail for it is held"}}, nil
	}}
	var b strings.Builder
	for _, tc := range []struct {
		api  commands.Provider
		line string
	}{
		{burstProvider{&fakeProvider{}}, "/maildomain register b001.example.com a burst"},
		{burstProvider{&fakeProvider{}}, "/maildomain register n002.example.com"},
		{existing, "/maildomain register flows.example.com"},
		{existing, "/maildomain register пример.рф"},
		{existing, "/maildomain register busy.example.com"},
	} {
		e := newEnv(t, tc.api, commands.Config{Source: commands.SourceSlack}, nil)
		if _, label := e.typed(admin1, tc.line); label != commands.LabelOK && !strings.Contains(tc.line, "busy") {
			t.Fatalf("%s: label %q", tc.line, label)
		}
		b.WriteString("##### " + tc.line + "\n")
		b.WriteString(e.msgr.transcript(nil))
		for _, btn := range e.msgr.lastTo(admin1).Buttons {
			b.WriteString("button value " + btn.Value + "\n")
		}
		for _, a := range e.audit() {
			b.WriteString("audit " + a.Line(func(id string) string { return id }) + "\n")
		}
		for _, l := range e.logs.All() {
			buf, err := zapcore.NewJSONEncoder(zapcore.EncoderConfig{MessageKey: "msg", LevelKey: "level",
				EncodeLevel: zapcore.LowercaseLevelEncoder}).EncodeEntry(l.Entry, l.Context)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString("log " + buf.String())
		}
	}
	commands.Golden(t, "flow/register-burst", b.String())
}
