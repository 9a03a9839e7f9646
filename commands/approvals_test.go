package commands

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/internal/testkit"
)

// request has user ask for op under c and returns the pending request.
func request(t *testing.T, c *Core, user, text string) Pending {
	t.Helper()
	cmd, rest, _ := strings.Cut(text, " ")
	d := c.Decide(Request{UserID: user, ChannelID: "C1", Command: cmd, Text: rest})
	if d.Step != StepApproval || d.Pending == nil {
		t.Fatalf("Decide(%s, %q) = %+v, want a pending request", user, text, d)
	}
	return *d.Pending
}

func TestEncodePendingRoundTrip(t *testing.T) {
	t.Parallel()
	clk := testkit.NewClock(clockStart)
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsRequests, Now: clk.Now, SigningKey: []byte("k")})
	p := request(t, c, "UUSER1", "/mailbox add Alice@пример.рф for the <@U1|team> & co")
	s := c.EncodePending(p)
	if len(s) > MaxEncodedPending {
		t.Errorf("EncodePending length %d > %d", len(s), MaxEncodedPending)
	}
	got, err := c.DecodePending(s)
	if err != nil {
		t.Fatalf("DecodePending(EncodePending(p)) error: %v", err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("DecodePending(EncodePending(p)) mismatch (-want +got):\n%s", diff)
	}
	// Another core with the same key (a replica, or after a restart) decodes it.
	other := newCore(t, &fakeAPI{}, Config{SigningKey: []byte("k")})
	if _, err := other.DecodePending(s); err != nil {
		t.Errorf("DecodePending on a core with the same key: %v", err)
	}
	// One with another key does not.
	stranger := newCore(t, &fakeAPI{}, Config{})
	if _, err := stranger.DecodePending(s); !errors.Is(err, ErrBadPending) {
		t.Errorf("DecodePending on a core with another key = %v, want ErrBadPending", err)
	}
}

func TestEncodePendingFits(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{})
	now := time.Now()
	p := Pending{ID: "abcdefghij", Requester: "U0123456789", Channel: "C0123456789", Created: now, Expires: now.Add(DefaultApprovalTTL),
		Op: Operation{Action: ActionAddMailbox, Login: strings.Repeat("a", 30), Domain: name253(), Reason: strings.Repeat("\U0001F600\"\\", 400)}}
	s := c.EncodePending(p)
	if len(s) > MaxEncodedPending {
		t.Fatalf("EncodePending of a huge request is %d bytes, want at most %d", len(s), MaxEncodedPending)
	}
	got, err := c.DecodePending(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Op.Domain != p.Op.Domain || got.Op.Login != p.Op.Login || !strings.HasPrefix(p.Op.Reason, strings.TrimSuffix(got.Op.Reason, "…")) {
		t.Errorf("DecodePending(EncodePending(huge)) = %+v: only the reason may be cut", got.Op)
	}
}

func TestDecodePendingRejectsTampering(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsRequests})
	s := c.EncodePending(request(t, c, "UUSER1", "/maildomain register example.com"))
	head, sig, _ := strings.Cut(s[3:], ".")
	forged := c.requests.encode(wirePending{ID: "x", Requester: "UUSER1", Action: ActionRegisterDomain, Domain: "evil.com"})
	_, forgedSig, _ := strings.Cut(forged[3:], ".")
	flip := func(s string, i int) string {
		b := []byte(s)
		b[i] ^= 1
		return string(b)
	}
	for name, bad := range map[string]string{
		"empty":           "",
		"garbage":         "hello",
		"flipped payload": "p1." + flip(head, 5) + "." + sig,
		"flipped sig":     "p1." + head + "." + flip(sig, 3),
		"other sig":       "p1." + head + "." + forgedSig,
		"no sig":          "p1." + head,
		"empty sig":       "p1." + head + ".",
		"other version":   "p2." + head + "." + sig,
		"truncated":       s[:len(s)-2],
		"too long":        s + strings.Repeat("A", MaxEncodedPending),
	} {
		if p, err := c.DecodePending(bad); !errors.Is(err, ErrBadPending) {
			t.Errorf("DecodePending(%s) = %+v, %v; want ErrBadPending", name, p, err)
		}
	}
}

// TestSealKindsDoNotCross checks that a value signed for one purpose is
// refused for another: a form's metadata or a "Check DNS" value is no
// pending request, and a pending request is no form.
func TestSealKindsDoNotCross(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsRequests})
	form := c.Decide(Request{UserID: "UUSER1", ChannelID: "C1", Command: CmdMailbox}).Form
	check := c.reads.checkButton("example.com", pdd.SecretsOf("example.com", "3c8a1f2e9b7d", "c").Record).Value
	pending := c.EncodePending(request(t, c, "UUSER1", "/maildomain register example.com"))
	for name, s := range map[string]string{"form metadata": form.Metadata, "check value": check} {
		if p, err := c.DecodePending(s); !errors.Is(err, ErrBadPending) {
			t.Errorf("DecodePending(%s) = %+v, %v; want ErrBadPending", name, p, err)
		}
	}
	if _, _, errs := c.SubmitForm("UUSER1", pending, FormValues{Domain: "example.com", User: "bob", Reason: "r"}); errs[FieldDomain] == "" {
		t.Errorf("SubmitForm with a pending request as metadata = %v, want it refused", errs)
	}
	var w wireCheck
	if err := c.unseal(checkKind, pending, &w); err == nil {
		t.Errorf("unseal(check, pending request) = %+v, want an error", w)
	}
}

// TestDecodePendingExpiry checks the expiry a decoded request carries: its
// own, or for a value of the first release (no expiry) its creation plus
// the TTL; an expiry before the creation is refused.
func TestDecodePendingExpiry(t *testing.T) {
	t.Parallel()
	c := newCore(t, &fakeAPI{}, Config{ApprovalTTL: 2 * time.Hour, SigningKey: []byte("k")})
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	base := wirePending{ID: "abcdefghij", Requester: "U1", Action: ActionRegisterDomain, Domain: "example.com", Created: created.UnixMilli()}
	old := base
	p, err := c.DecodePending(c.requests.encode(old))
	if err != nil || !p.Expires.Equal(created.Add(2*time.Hour)) {
		t.Errorf("DecodePending(no expiry) = %v, %v; want expiry %v", p.Expires, err, created.Add(2*time.Hour))
	}
	own := base
	own.Expires = created.Add(time.Hour).UnixMilli()
	if p, err := c.DecodePending(c.requests.encode(own)); err != nil || !p.Expires.Equal(created.Add(time.Hour)) {
		t.Errorf("DecodePending(own expiry) = %v, %v; want %v", p.Expires, err, created.Add(time.Hour))
	}
	back := base
	back.Expires = created.Add(-time.Second).UnixMilli()
	if p, err := c.DecodePending(c.requests.encode(back)); !errors.Is(err, ErrBadPending) {
		t.Errorf("DecodePending(expiry before creation) = %+v, %v; want ErrBadPending", p, err)
	}
	noID := base
	noID.ID = ""
	if p, err := c.DecodePending(c.requests.encode(noID)); !errors.Is(err, ErrBadPending) {
		t.Errorf("DecodePending(no ID) = %+v, %v; want ErrBadPending", p, err)
	}
}

// FuzzDecodePending checks that any button value decodes without a panic,
// and that only a value this core signed decodes at all.
func FuzzDecodePending(f *testing.F) {
	c := newCore(f, &fakeAPI{}, Config{SigningKey: []byte("fuzz")})
	good := c.EncodePending(Pending{ID: "abcdefghij", Requester: "U1", Op: Operation{Action: ActionRegisterDomain, Domain: "example.com"}})
	f.Add(good)
	f.Add("p1..")
	f.Add("p1.e30.")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := c.DecodePending(s)
		if err != nil {
			if p != (Pending{}) {
				t.Fatalf("DecodePending(%q) = %+v with error %v", s, p, err)
			}
			return
		}
		if p.ID == "" {
			t.Fatalf("DecodePending(%q) accepted a request without an ID", s)
		}
		// Without the key, nothing but values the core signed decode.
		if !hmacSigned(c, s) {
			t.Fatalf("DecodePending(%q) accepted a value the core did not sign", s)
		}
	})
}

// hmacSigned reports whether s carries c's signature of its head.
func hmacSigned(c *Core, s string) bool {
	i := strings.LastIndexByte(s, '.')
	sig, err := b64.DecodeString(s[i+1:])
	return i > 0 && err == nil && string(sig) == string(c.sign(s[:i]))
}
