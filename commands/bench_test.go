package commands

import "testing"

// BenchmarkDecide measures parsing, validation and authorisation of a
// typical command.
func BenchmarkDecide(b *testing.B) {
	c := newCore(b, &fakeAPI{}, Config{Domains: []string{"example.com", "*.example.org"}})
	req := Request{UserID: "UADMIN1", ChannelID: "C1", Command: "/mailbox", Text: "add <mailto:alice@example.com|alice@example.com> new hire"}
	b.ReportAllocs()
	for b.Loop() {
		if d := c.Decide(req); d.Step != StepRun {
			b.Fatal(d.Reply.Text)
		}
	}
}

// BenchmarkDecideIDN is BenchmarkDecide with an internationalised domain.
func BenchmarkDecideIDN(b *testing.B) {
	c := newCore(b, &fakeAPI{}, Config{})
	req := Request{UserID: "UADMIN1", Command: "/maildomain", Text: "register пример.рф"}
	b.ReportAllocs()
	for b.Loop() {
		if d := c.Decide(req); d.Step != StepRun {
			b.Fatal(d.Reply.Text)
		}
	}
}

// BenchmarkPlainText renders a register reply with secrets and steps.
func BenchmarkPlainText(b *testing.B) {
	c := newCoreOn(b, &fakeAPI{}, &auditStore{}, Config{})
	r := c.runs.run(b.Context(), "UADMIN1", nil, "", Operation{Action: ActionRegisterDomain, Domain: "example.com"}).Reply
	b.ReportAllocs()
	for b.Loop() {
		if r.PlainText() == "" {
			b.Fatal("empty")
		}
	}
}

// BenchmarkDecideRegister is BenchmarkDecide for a domain's register, the
// command of a burst.
func BenchmarkDecideRegister(b *testing.B) {
	c := newCore(b, &fakeAPI{}, Config{})
	req := Request{UserID: "UADMIN1", ChannelID: "C1", Command: "/maildomain", Text: "register b001.example.com"}
	b.ReportAllocs()
	for b.Loop() {
		if d := c.Decide(req); d.Step != StepRun {
			b.Fatal(d.Reply.Text)
		}
	}
}
