package commands

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mailbot/mailbot/apiclient"
)

// request has user ask for op under c and returns the pending request.
func request(t *testing.T, c *Core, user, text string) Pending {
	t.Helper()
	cmd, rest, _ := strings.Cut(text, " ")
	d := c.Decide(Request{UserID: user, ChannelID: "C1", Command: cmd, Text: rest})
	if d.Outcome != OutcomeApproval || d.Pending == nil {
		t.Fatalf("Decide(%s, %q) = %+v, want a pending request", user, text, d)
	}
	return *d.Pending
}

func TestEncodePendingRoundTrip(t *testing.T) {
	t.Parallel()
	clk := newClock()
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
	p := Pending{ID: "abcdefghij", Requester: "U0123456789", Channel: "C0123456789", Created: time.Now(),
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
	forged := c.encode(wirePending{ID: "x", Requester: "UUSER1", Action: ActionRegisterDomain, Domain: "evil.com"})
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

func TestResolve(t *testing.T) {
	t.Parallel()
	const admin, admin2, user = "UADMIN1", "UADMIN2", "UUSER1"
	tests := []struct {
		name      string
		mode      ApprovalMode
		requester string
		decider   string
		approve   bool
		want      VerdictKind
		calls     int64
	}{
		{"admin approves", ApprovalsRequests, user, admin, true, VerdictApproved, 1},
		{"admin denies", ApprovalsRequests, user, admin, false, VerdictDenied, 0},
		{"non-admin approves", ApprovalsRequests, user, "UUSER2", true, VerdictRefused, 0},
		{"requester approves own", ApprovalsRequests, user, user, true, VerdictRefused, 0},
		{"empty decider", ApprovalsRequests, user, "", true, VerdictRefused, 0},
		{"all: another admin approves", ApprovalsAll, admin, admin2, true, VerdictApproved, 1},
		{"all: self-approval", ApprovalsAll, admin, admin, true, VerdictRefused, 0},
		{"all: self-denial", ApprovalsAll, admin, admin, false, VerdictRefused, 0},
		{"all: admin approves a user", ApprovalsAll, user, admin, true, VerdictApproved, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := &fakeAPI{}
			c := newCore(t, api, Config{Approvals: tc.mode})
			p := request(t, c, tc.requester, "/mailbox add alice@example.com")
			v := c.Resolve(t.Context(), p, tc.decider, tc.approve)
			if v.Kind != tc.want {
				t.Errorf("Resolve = %v (%q), want %v", v.Kind, v.Reply.Text, tc.want)
			}
			if n := api.calls.Load(); n != tc.calls {
				t.Errorf("API calls = %d, want %d", n, tc.calls)
			}
			switch v.Kind {
			case VerdictApproved:
				if v.Result == nil || !v.Result.Notice.OK || v.Result.Notice.Approver != tc.decider || v.Result.Notice.Actor != tc.requester || v.ForRequester == nil {
					t.Errorf("approved verdict = %+v, want the result of the requester's operation, approved by %s", v, tc.decider)
				}
				for _, f := range v.Result.Reply.Fields {
					if f.Secret && (strings.Contains(v.Reply.PlainText(), f.Value) || strings.Contains(v.Summary(p, nil), f.Value)) {
						t.Errorf("the approver's reply or the summary holds the secret %s", f.Label)
					}
				}
			case VerdictDenied:
				if v.ForRequester == nil || !strings.Contains(v.ForRequester.Text, tc.decider) {
					t.Errorf("denied verdict tells the requester %+v, want who denied", v.ForRequester)
				}
			case VerdictRefused:
				if !v.Reply.Error || v.Reply.Text == "" {
					t.Errorf("refused verdict reply = %+v, want the reason", v.Reply)
				}
				// A refused click does not use up the request.
				if v2 := c.Resolve(t.Context(), p, admin2, true); v2.Kind != VerdictApproved {
					t.Errorf("after a refused click, another admin's approval = %v, want approved", v2.Kind)
				}
			}
		})
	}
}

func TestResolveExpiry(t *testing.T) {
	t.Parallel()
	clk := newClock()
	api := &fakeAPI{}
	c := newCore(t, api, Config{Approvals: ApprovalsRequests, ApprovalTTL: time.Hour, Now: clk.Now})
	fresh := request(t, c, "UUSER1", "/maildomain register example.com")
	clk.Advance(time.Hour)
	stale := request(t, c, "UUSER1", "/maildomain register example.org")
	clk.Advance(time.Millisecond)
	if v := c.Resolve(t.Context(), fresh, "UADMIN1", true); v.Kind != VerdictExpired || !v.Reply.Error || v.Summary(fresh, nil) == "" {
		t.Errorf("Resolve(older than the TTL) = %v %+v, want expired", v.Kind, v.Reply)
	}
	if v := c.Resolve(t.Context(), stale, "UADMIN1", true); v.Kind != VerdictApproved {
		t.Errorf("Resolve(within the TTL) = %v %q, want approved", v.Kind, v.Reply.Text)
	}
	if n := api.calls.Load(); n != 1 {
		t.Errorf("API calls = %d, want 1", n)
	}
}

func TestResolveRevalidates(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{}
	signer := newCore(t, api, Config{Approvals: ApprovalsRequests, SigningKey: []byte("k")})
	p := request(t, signer, "UUSER1", "/maildomain register example.net")
	// After a restart the allow-list no longer has example.net.
	c := newCore(t, api, Config{Approvals: ApprovalsRequests, SigningKey: []byte("k"), Domains: []string{"example.com"}})
	p, err := c.DecodePending(signer.EncodePending(p))
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Resolve(t.Context(), p, "UADMIN1", true); v.Kind != VerdictInvalid || !strings.Contains(v.Reply.Text, "may not touch") {
		t.Errorf("Resolve(outside the allow-list) = %v %q, want invalid", v.Kind, v.Reply.Text)
	}
	if n := api.calls.Load(); n != 0 {
		t.Errorf("API calls = %d, want 0", n)
	}
}

// TestResolveConcurrent clicks Approve from 50 goroutines, by two admins:
// the operation runs once, and every other click hears who decided.
func TestResolveConcurrent(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	api := &fakeAPI{}
	api.add = func(_ context.Context, d, l, _ string) (*apiclient.Mailbox, error) {
		<-release // keep the first run busy while the others click
		return &apiclient.Mailbox{Domain: d, Login: l + "@" + d, UID: 7}, nil
	}
	c := newCore(t, api, Config{Approvals: ApprovalsRequests})
	p := request(t, c, "UUSER1", "/mailbox add alice@example.com")
	const n = 50
	verdicts := make([]Verdict, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			decider := []string{"UADMIN1", "UADMIN2"}[i%2]
			verdicts[i] = c.Resolve(t.Context(), p, decider, true)
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if got := api.calls.Load(); got != 1 {
		t.Fatalf("API calls = %d, want exactly 1", got)
	}
	approved, already := 0, 0
	var winner string
	for _, v := range verdicts {
		switch v.Kind {
		case VerdictApproved:
			approved++
			winner = v.DecidedBy
		case VerdictAlreadyDecided:
			already++
		}
	}
	if approved != 1 || already != n-1 {
		t.Fatalf("verdicts: %d approved, %d already decided; want 1 and %d", approved, already, n-1)
	}
	for _, v := range verdicts {
		if v.Kind == VerdictAlreadyDecided && (v.DecidedBy != winner || !v.Approved || !strings.Contains(v.Reply.Text, winner)) {
			t.Errorf("already-decided verdict = %+v, want decided by %s, approved", v, winner)
		}
	}
	// A later click, even a deny, changes nothing.
	if v := c.Resolve(t.Context(), p, "UADMIN2", false); v.Kind != VerdictAlreadyDecided || !v.Approved {
		t.Errorf("a later deny = %v, want already decided (approved)", v.Kind)
	}
	if got := api.calls.Load(); got != 1 {
		t.Errorf("API calls after a later click = %d, want 1", got)
	}
}

// TestGuardPrunes checks that decisions are forgotten once their requests
// expire, so that the guard's memory stays bounded.
func TestGuardPrunes(t *testing.T) {
	t.Parallel()
	clk := newClock()
	c := newCore(t, &fakeAPI{}, Config{Approvals: ApprovalsRequests, ApprovalTTL: time.Hour, Now: clk.Now})
	old := request(t, c, "UUSER1", "/maildomain register example.com")
	c.Resolve(t.Context(), old, "UADMIN1", false)
	clk.Advance(2 * time.Hour)
	fresh := request(t, c, "UUSER1", "/maildomain register example.org")
	c.Resolve(t.Context(), fresh, "UADMIN1", false)
	c.guard.mu.Lock()
	_, oldKept := c.guard.entries[old.ID]
	_, freshKept := c.guard.entries[fresh.ID]
	c.guard.mu.Unlock()
	if oldKept || !freshKept {
		t.Errorf("guard keeps old: %v, fresh: %v; want false, true", oldKept, freshKept)
	}
	if v := c.Resolve(t.Context(), old, "UADMIN1", true); v.Kind != VerdictExpired {
		t.Errorf("Resolve(pruned request) = %v, want expired", v.Kind)
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
