package providertest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

func testRegisterDomain(t *testing.T, s *suite) {
	const name = "fresh.example.org"
	d, err := s.p.RegisterDomain(t.Context(), name)
	s.ok(t, "RegisterDomain", err)
	if d.Name != name || d.Status == "" {
		t.Errorf("RegisterDomain(%s) = name %q, status %q; want the name and a status", name, d.Name, d.Status)
	}
	got, err := s.p.DomainStatus(t.Context(), name)
	s.ok(t, "DomainStatus after RegisterDomain", err)
	if got.Name != name || got.Status != d.Status {
		t.Errorf("DomainStatus(%s) = %q, %q; want %q, %q as registered", name, got.Name, got.Status, name, d.Status)
	}
}

func testDomainStatus(t *testing.T, s *suite) {
	d, err := s.p.DomainStatus(t.Context(), Domain)
	s.ok(t, "DomainStatus", err)
	if d.Name != Domain || !d.Verified {
		t.Errorf("DomainStatus(%s) = name %q, verified %v; want the name, verified (AddDomain seeds a ready domain)", Domain, d.Name, d.Verified)
	}
	_, err = s.p.DomainStatus(t.Context(), "unknown.example.org")
	s.fail(t, "DomainStatus of a domain not in the account", err, apiclient.OpDomainStatus, apiclient.ClassRefused, "")
}

func testMailDNS(t *testing.T, s *suite) {
	dns, err := s.p.MailDNS(t.Context(), Domain)
	s.ok(t, "MailDNS", err)
	mx, spf := dns.Of(apiclient.PurposeMX), dns.Of(apiclient.PurposeSPF)
	if len(mx) == 0 || len(mx[0].MX) == 0 || mx[0].MX[0].Host == "" || len(spf) != 1 || spf[0].Value == "" {
		t.Errorf("MailDNS = %+v; want an MX set and one SPF rule", dns.Records)
	}
}

// fixedOf is the MX and SPF records of dns: what every provider fixes.
func fixedOf(dns *apiclient.MailDNS) []apiclient.Record {
	return append(dns.Of(apiclient.PurposeMX), dns.Of(apiclient.PurposeSPF)...)
}

// recordEqual reports whether two records are the same.
func recordEqual(a, b apiclient.Record) bool {
	return a.Purpose == b.Purpose && a.Type == b.Type && a.Name == b.Name && a.Value == b.Value && slices.Equal(a.MX, b.MX)
}

// testMailDNSFixed checks that MailDNS returns what is fixed (the MX
// host, the SPF rule) beside the error when its read fails (refused
// credentials) and when the read's answer comes late: a slow answer, to a
// client whose own timeout would wait for it, is a timeout within
// MailDNS's own bound (apiclient.MailDNSTimeout).
func testMailDNSFixed(t *testing.T, s *suite) {
	want, err := s.p.MailDNS(t.Context(), Domain)
	s.ok(t, "MailDNS", err)
	bad := s.connect(t, false, callTimeout)
	got, err := bad.MailDNS(t.Context(), Domain)
	checkFixed(t, s, "MailDNS with refused credentials", want, got, err)
	patient := s.connect(t, true, 3*slowExtra)
	if err := s.sb.InjectFault("slow", 1); err != nil {
		t.Fatal(err)
	}
	sent := s.requests(func() { got, err = patient.MailDNS(t.Context(), Domain) })
	var e *apiclient.Error
	if len(sent) > 0 && (!errors.As(err, &e) || !e.Timeout) {
		t.Errorf("MailDNS whose read is answered %s late: %v, want a timeout of its own", slowExtra, err)
	}
	checkFixed(t, s, "MailDNS answered late", want, got, err)
}

// checkFixed checks that a MailDNS that failed with err still returned
// the MX host and SPF rule of want.
func checkFixed(t *testing.T, s *suite, what string, want, got *apiclient.MailDNS, err error) {
	t.Helper()
	if err != nil {
		s.noSecret(t, err)
	}
	if got == nil || !slices.EqualFunc(fixedOf(got), fixedOf(want), recordEqual) {
		t.Errorf("%s = %+v, %v; want MX and SPF %+v whatever the read did", what, got, err, fixedOf(want))
	}
}

func testAddMailbox(t *testing.T, s *suite) {
	for _, force := range []bool{false, true} {
		login := fmt.Sprintf("alice%v", force)
		pw := s.password()
		sent := s.requests(func() {
			mb, err := s.p.AddMailbox(t.Context(), Domain, login, pw, force)
			s.ok(t, "AddMailbox", err)
			info := s.mailbox(t, login)
			if !strings.EqualFold(mb.Address, address(login)) || mb.State != apiclient.StateActive {
				t.Errorf("AddMailbox = %q, %s; want %s, active", mb.Address, mb.State, address(login))
			}
			if info.Password != pw || info.State != string(apiclient.StateActive) {
				t.Errorf("the sandbox holds state %q and another password than the one sent", info.State)
			}
			checkForce(t, s, force, mb, info)
			checkUID(t, s, mb, info)
		})
		if n := len(sent.writes()); n != s.env.Writes.add() || sent.repeated() {
			t.Errorf("AddMailbox sent %d writes (want %d), or a request twice", n, s.env.Writes.add())
		}
	}
}

// checkForce checks that a password set with force asks for a change
// exactly where the provider can.
func checkForce(t *testing.T, s *suite, force bool, mb *apiclient.Mailbox, info MailboxInfo) {
	t.Helper()
	want := force && s.caps.ForcePasswordChange
	if mb.PasswordChangeRequired != want || info.ForcePasswordChange != want {
		t.Errorf("force %v (capability %v): result says %v, the sandbox %v; want %v",
			force, s.caps.ForcePasswordChange, mb.PasswordChangeRequired, info.ForcePasswordChange, want)
	}
}

// checkUID checks that a mailbox has the sandbox's UID where the provider
// has UIDs, and none elsewhere.
func checkUID(t *testing.T, s *suite, mb *apiclient.Mailbox, info MailboxInfo) {
	t.Helper()
	if s.caps.UIDs && (mb.UID == "" || mb.UID != info.UID) || !s.caps.UIDs && mb.UID != "" {
		t.Errorf("UID %q, the sandbox's %q (capability %v)", mb.UID, info.UID, s.caps.UIDs)
	}
}

func testAddMailboxRefused(t *testing.T, s *suite) {
	pw := s.add(t, "alice")
	other := s.password()
	sent := s.requests(func() {
		_, err := s.p.AddMailbox(t.Context(), Domain, "alice", other, false)
		s.fail(t, "AddMailbox of an existing mailbox", err, apiclient.OpAdd, apiclient.ClassRefused, apiclient.ReasonExists)
	})
	if notRetried(t, "a refused add", sent); s.mailbox(t, "alice").Password != pw {
		t.Error("a refused add changed the password")
	}
	sent = s.requests(func() {
		_, err := s.p.AddMailbox(t.Context(), Domain, "no such login!", other, false)
		s.fail(t, "AddMailbox of an invalid login", err, apiclient.OpAdd, apiclient.ClassRefused, apiclient.ReasonInvalid)
	})
	notRetried(t, "an add of an invalid login", sent)
}

func testSetPassword(t *testing.T, s *suite) {
	s.add(t, "alice")
	for _, force := range []bool{false, true} {
		pw := s.password()
		mb, err := s.p.SetPassword(t.Context(), Domain, "alice", pw, force)
		s.ok(t, "SetPassword", err)
		info := s.mailbox(t, "alice")
		if info.Password != pw || !strings.EqualFold(mb.Address, address("alice")) {
			t.Errorf("SetPassword = %q; or the sandbox holds another password than the one sent", mb.Address)
		}
		checkForce(t, s, force, mb, info)
	}
}

func testSetLoginEnabled(t *testing.T, s *suite) {
	s.add(t, "alice")
	mb, err := s.p.SetLoginEnabled(t.Context(), Domain, "alice", false)
	s.ok(t, "SetLoginEnabled(false)", err)
	info := s.mailbox(t, "alice")
	if mb.State == apiclient.StateActive || info.State != string(mb.State) {
		t.Errorf("blocked: result %s, sandbox %s; want the same state, not active", mb.State, info.State)
	}
	if s.caps.KeepsMailWhenBlocked && info.State != string(apiclient.StateBlocked) {
		t.Errorf("blocked on a provider that keeps mail: sandbox state %s, want blocked", info.State)
	}
	mb, err = s.p.SetLoginEnabled(t.Context(), Domain, "alice", true)
	s.ok(t, "SetLoginEnabled(true)", err)
	if info := s.mailbox(t, "alice"); mb.State != apiclient.StateActive || info.State != string(apiclient.StateActive) {
		t.Errorf("unblocked: result %s, sandbox %s; want active", mb.State, info.State)
	}
}

func testLookupMailbox(t *testing.T, s *suite) {
	s.add(t, "alice")
	s.sb.AddMailboxes(Domain, 40) // alice is not on the first page
	mb, err := s.p.LookupMailbox(t.Context(), Domain, "alice")
	s.ok(t, "LookupMailbox", err)
	info := s.mailbox(t, "alice")
	if !strings.EqualFold(mb.Address, address("alice")) || mb.State != apiclient.StateActive {
		t.Errorf("LookupMailbox = %q, %s; want %s, active", mb.Address, mb.State, address("alice"))
	}
	checkUID(t, s, mb, info)
	_, err = s.p.SetLoginEnabled(t.Context(), Domain, "alice", false)
	s.ok(t, "SetLoginEnabled(false)", err)
	mb, err = s.p.LookupMailbox(t.Context(), Domain, "alice")
	s.ok(t, "LookupMailbox of a blocked mailbox", err)
	if string(mb.State) != s.mailbox(t, "alice").State {
		t.Errorf("LookupMailbox of a blocked mailbox: state %s, the sandbox's %s", mb.State, s.mailbox(t, "alice").State)
	}
}

func testUnknownMailbox(t *testing.T, s *suite) {
	calls := []struct {
		op apiclient.Op
		fn func() error
	}{
		{apiclient.OpReset, func() error {
			_, err := s.p.SetPassword(t.Context(), Domain, "nobody", s.password(), false)
			return err
		}},
		{apiclient.OpBlock, func() error { _, err := s.p.SetLoginEnabled(t.Context(), Domain, "nobody", false); return err }},
		{apiclient.OpUnblock, func() error { _, err := s.p.SetLoginEnabled(t.Context(), Domain, "nobody", true); return err }},
		{apiclient.OpLookup, func() error { _, err := s.p.LookupMailbox(t.Context(), Domain, "nobody"); return err }},
	}
	for _, c := range calls {
		notRetried(t, string(c.op)+" of an unknown mailbox", s.requests(func() {
			s.fail(t, string(c.op)+" of an unknown mailbox", c.fn(), c.op, apiclient.ClassRefused, apiclient.ReasonNotFound)
		}))
	}
}

func testListMailboxes(t *testing.T, s *suite) {
	const total, limit = 25, 10
	s.sb.AddMailboxes(Domain, total)
	seen := map[string]int{}
	cursor := ""
	for range total + 1 {
		page, err := s.p.ListMailboxes(t.Context(), Domain, cursor, limit)
		s.ok(t, "ListMailboxes", err)
		if s.caps.Paged && len(page.Mailboxes) > limit {
			t.Errorf("a page of %d mailboxes, limit %d", len(page.Mailboxes), limit)
		}
		if page.Total != -1 && page.Total != total {
			t.Errorf("Total %d, want %d or -1", page.Total, total)
		}
		for _, mb := range page.Mailboxes {
			seen[strings.ToLower(mb.Address)]++
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if cursor != "" {
		t.Fatalf("ListMailboxes did not end after %d pages", total+1)
	}
	for i := 1; i <= total; i++ {
		if a := address(fmt.Sprintf("user%04d", i)); seen[a] != 1 {
			t.Errorf("%s listed %d times, want once", a, seen[a])
		}
	}
	if len(seen) != total {
		t.Errorf("%d mailboxes listed, want %d", len(seen), total)
	}
}
