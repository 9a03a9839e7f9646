package commands_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
)

// BenchmarkRequestApprove measures one request's life on the memory
// store with a fake API: decide, record and post it, then approve it and
// run it (the recording messenger's bookkeeping included).
func BenchmarkRequestApprove(b *testing.B) {
	e := newEnv(b, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	e.msgr.discard = true
	b.ReportAllocs()
	for b.Loop() {
		d, _ := e.typed(user1, "/maildomain register example.com")
		if label := e.click(commands.ButtonApprove, *d.Pending, admin1, e.msgr.lastPost); label != commands.LabelOK {
			b.Fatal(label)
		}
	}
}

// BenchmarkClickDecided measures a stale click on a request decided
// before: the path 50 concurrent clicks take but one.
func BenchmarkClickDecided(b *testing.B) {
	e := newEnv(b, &fakeProvider{}, commands.Config{Approvals: commands.ApprovalsRequests}, nil)
	p, ref := e.request(user1, "/maildomain register example.com")
	e.click(commands.ButtonApprove, p, admin1, ref)
	e.msgr.discard = true
	b.ReportAllocs()
	for b.Loop() {
		if label := e.click(commands.ButtonApprove, p, admin2, ref); label != commands.LabelDecided {
			b.Fatal(label)
		}
	}
}

// burstProvider answers like PDD in a burst of registers: it
// registers a new domain only after a status read that did not find it.
// Its account has every domain but one in ten (those whose name starts
// with "n"), each waiting for verification with its secrets.
type burstProvider struct{ *fakeProvider }

func (p burstProvider) Capabilities() apiclient.Capabilities {
	c := p.fakeProvider.Capabilities()
	c.RegisterAnswersAsNew = true
	return c
}

func (p burstProvider) DomainStatus(_ context.Context, domain string) (*apiclient.Domain, error) {
	if strings.HasPrefix(domain, "n") {
		return nil, &apiclient.Error{Provider: apiclient.ProviderPDD, Op: apiclient.OpDomainStatus,
			Class: apiclient.ClassRefused, Reason: apiclient.ReasonNotFound, Code: "not_found", Attempts: 1}
	}
	return &apiclient.Domain{Name: domain, Status: pdd.StatusDomainActivate, Meaning: pdd.Status(pdd.StatusDomainActivate).Meaning(),
		Stage: "owner-check", Secrets: pdd.SecretsOf(domain, secretName, secretContent)}, nil
}

// burstCore is a core as a burst of registers on PDD meets it: the
// memory store, a messenger that discards, production's JSON log writing
// to nowhere; and run, which has it carry out the i-th command of the
// burst (9 in 10 find the domain registered already, 1 in 10 registers
// it) and returns Execute's label.
func burstCore(tb testing.TB) (run func(i int) string) {
	r, err := commands.NewRouter(burstProvider{&fakeProvider{}})
	if err != nil {
		tb.Fatal(err)
	}
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zap.InfoLevel))
	cfg := commands.Config{Admins: []string{admin1}, SigningKey: testKey, Source: commands.SourceSlack,
		Mention: func(id string) string { return "<@" + id + ">" }}
	core, err := commands.NewRouted(r, memstore.New(memstore.Options{}), &recMessenger{t: tb, discard: true}, cfg, logger)
	if err != nil {
		tb.Fatal(err)
	}
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprintf("register b%03d.example.com", i)
	}
	texts[3] = "register n003.example.com"
	to := commands.Route{User: admin1, Channel: "CGENERAL", Handle: "https://hooks.example/1"}
	ctx := tb.Context()
	return func(i int) string {
		d := core.Decide(commands.Request{UserID: admin1, ChannelID: "CGENERAL", Command: "/maildomain", Text: texts[i%10]})
		return core.Execute(ctx, to, d)
	}
}

// BenchmarkRegisterBurst measures the core's share of one command of a
// burst of `/maildomain register` on PDD through Decide and Execute
// (burstCore).
func BenchmarkRegisterBurst(b *testing.B) {
	run := burstCore(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if label := run(i); label != commands.LabelOK {
			b.Fatal(label)
		}
		i++
	}
}
