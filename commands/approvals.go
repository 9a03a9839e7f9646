package commands

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// MaxEncodedPending is the longest [Core.EncodePending] string: the limit of
// a Slack button's value.
const MaxEncodedPending = 2000

// encodingVersion prefixes every encoded pending request.
const encodingVersion = "p1"

// ErrBadPending is a pending request that does not decode or whose
// signature does not match: forged, damaged or signed with another key.
var ErrBadPending = errors.New("pending request does not decode or is not signed by this mailbot")

// wirePending is the signed payload: short keys, to fit a button's value.
type wirePending struct {
	ID        string `json:"i"`
	Requester string `json:"u"`
	Channel   string `json:"c,omitempty"`
	Action    Action `json:"a"`
	Domain    string `json:"d"`
	Login     string `json:"l,omitempty"`
	Reason    string `json:"r,omitempty"`
	Created   int64  `json:"t"` // Unix milliseconds
}

var b64 = base64.RawURLEncoding

// EncodePending returns p as a signed string of at most 2000 bytes, for a
// Slack button's value: "p1.<payload>.<HMAC-SHA256>", both base64url. When
// the reason would make it longer, the reason is cut.
func (c *Core) EncodePending(p Pending) string {
	w := wirePending{ID: p.ID, Requester: p.Requester, Channel: p.Channel, Action: p.Op.Action,
		Domain: p.Op.Domain, Login: p.Op.Login, Reason: p.Op.Reason, Created: p.Created.UnixMilli()}
	for {
		s := c.encode(w)
		if len(s) <= MaxEncodedPending || w.Reason == "" {
			return s
		}
		r := []rune(w.Reason)
		w.Reason = trunc(w.Reason, len(r)/2)
	}
}

func (c *Core) encode(w wirePending) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(w) // strings and numbers only: cannot fail
	head := encodingVersion + "." + b64.EncodeToString(bytes.TrimSpace(buf.Bytes()))
	return head + "." + b64.EncodeToString(c.sign(head))
}

func (c *Core) sign(head string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(head))
	return m.Sum(nil)
}

// DecodePending checks the signature of s and returns the request.
func (c *Core) DecodePending(s string) (Pending, error) {
	if len(s) > MaxEncodedPending {
		return Pending{}, ErrBadPending
	}
	i := strings.LastIndexByte(s, '.')
	if i < 0 || !strings.HasPrefix(s, encodingVersion+".") {
		return Pending{}, ErrBadPending
	}
	head, sig := s[:i], s[i+1:]
	got, err := b64.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.sign(head)) {
		return Pending{}, ErrBadPending
	}
	raw, err := b64.DecodeString(head[len(encodingVersion)+1:])
	if err != nil {
		return Pending{}, ErrBadPending
	}
	var w wirePending
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil || w.ID == "" {
		return Pending{}, ErrBadPending
	}
	return Pending{ID: w.ID, Requester: w.Requester, Channel: w.Channel,
		Op:      Operation{Action: w.Action, Domain: w.Domain, Login: w.Login, Reason: w.Reason},
		Created: time.UnixMilli(w.Created).UTC()}, nil
}

// guard makes decisions exactly-once per request ID within the process. An
// entry is kept until its request expires; after that the request is
// refused as expired anyway, so the memory stays bounded by the requests
// of one TTL.
type guard struct {
	mu        sync.Mutex
	entries   map[string]*decided
	lastPrune time.Time
}

// decided is a decision taken.
type decided struct {
	by       string
	at       time.Time
	approved bool
	expires  time.Time
}

// pruneEvery bounds how often the guard looks for expired entries.
const pruneEvery = time.Minute

// prune drops expired entries; the caller holds mu.
func (g *guard) prune(now time.Time) {
	if now.Sub(g.lastPrune) < pruneEvery {
		return
	}
	g.lastPrune = now
	for id, d := range g.entries {
		if now.After(d.expires) {
			delete(g.entries, id)
		}
	}
}

// Resolve decides the pending request p (as decoded by [Core.DecodePending])
// for decider: approve or deny. It runs the operation at most once per
// request ID in this process, however many concurrent or later calls.
//
// The checks, in order: decider is an admin (and in mode all not the
// requester); nobody decided before; the request is not expired; it still
// validates under the current policy (allow-list). Only then is the decision
// recorded, and, when approved, the operation run.
func (c *Core) Resolve(ctx context.Context, p Pending, decider string, approve bool) Verdict {
	if !c.IsAdmin(decider) {
		return c.refused("Only mailbot admins may approve or deny requests.")
	}
	if c.cfg.Approvals == ApprovalsAll && decider == p.Requester {
		return c.refused("You made this request yourself: another admin must decide it.")
	}
	now := c.cfg.Now()
	if v, ok := c.claim(p, decider, approve, now); !ok {
		return v
	}
	if !approve {
		return c.denied(p, decider, now)
	}
	res := c.Run(ctx, p.Requester, decider, p.Op)
	return c.approved(p, decider, now, &res)
}

// claim records the decision unless p was decided, expired or no longer
// validates; then it returns the verdict that says so and false.
func (c *Core) claim(p Pending, decider string, approve bool, now time.Time) (Verdict, bool) {
	c.guard.mu.Lock()
	defer c.guard.mu.Unlock()
	c.guard.prune(now)
	if d, ok := c.guard.entries[p.ID]; ok {
		return c.alreadyDecided(p, d), false
	}
	expires := p.Created.Add(c.cfg.ApprovalTTL)
	if now.After(expires) {
		return c.expired(p), false
	}
	if ue := c.checkOp(p.Op); ue != nil || p.ID == "" {
		problem := "The request has no ID."
		if ue != nil {
			problem = ue.Problem
		}
		return Verdict{Kind: VerdictInvalid, Reply: Reply{Title: "Request no longer valid",
			Text: problem + " Nothing was sent to the PDD API.", Error: true}}, false
	}
	c.guard.entries[p.ID] = &decided{by: decider, at: now, approved: approve, expires: expires}
	return Verdict{}, true
}

func (c *Core) refused(why string) Verdict {
	return Verdict{Kind: VerdictRefused, Reply: Reply{Title: "Not allowed", Text: why + " Nothing was changed.", Error: true}}
}

func (c *Core) alreadyDecided(p Pending, d *decided) Verdict {
	word := "denied"
	if d.approved {
		word = "approved"
	}
	return Verdict{Kind: VerdictAlreadyDecided, DecidedBy: d.by, DecidedAt: d.at, Approved: d.approved,
		Reply: Reply{Title: "Already decided", Text: fmt.Sprintf("%s already %s this request (%s by %s) at %s. Nothing more was done.",
			c.cfg.Mention(d.by), word, p.Op, c.cfg.Mention(p.Requester), fmtTime(d.at))}}
}

func (c *Core) expired(p Pending) Verdict {
	return Verdict{Kind: VerdictExpired, Reply: Reply{Title: "Request expired", Error: true,
		Text: fmt.Sprintf("The request to %s by %s is older than %s and can no longer be decided. Nothing was sent to the PDD API; %s may ask again.",
			p.Op, c.cfg.Mention(p.Requester), fmtDuration(c.cfg.ApprovalTTL), c.cfg.Mention(p.Requester))}}
}

func (c *Core) denied(p Pending, decider string, now time.Time) Verdict {
	return Verdict{Kind: VerdictDenied, DecidedBy: decider, DecidedAt: now,
		Reply: Reply{Title: "Request denied", Text: fmt.Sprintf("You denied the request to %s by %s. Nothing was sent to the PDD API.",
			p.Op, c.cfg.Mention(p.Requester))},
		ForRequester: &Reply{Title: "Request denied", Error: true,
			Text: fmt.Sprintf("%s denied your request to %s.", c.cfg.Mention(decider), p.Op)}}
}

func (c *Core) approved(p Pending, decider string, now time.Time, res *Result) Verdict {
	outcome := "It failed: " + res.Notice.Code + " (" + codeMeaning(p.Op, res.Notice.Code) + ")."
	if res.Notice.OK {
		outcome = "It succeeded; " + c.cfg.Mention(p.Requester) + " gets the result."
	}
	return Verdict{Kind: VerdictApproved, DecidedBy: decider, DecidedAt: now, Approved: true, Result: res,
		Reply: Reply{Title: "Request approved", Error: !res.Notice.OK,
			Text: fmt.Sprintf("You approved the request to %s by %s. %s", p.Op, c.cfg.Mention(p.Requester), outcome)},
		ForRequester: &res.Reply}
}

// fmtTime writes a decision's time for people, in UTC.
func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// Summary is the ops-channel line of a pending request, without a secret:
// "U1 asks to register domain example.com; reason: …".
func (p Pending) Summary(mention func(userID string) string) string {
	if mention == nil {
		mention = func(id string) string { return id }
	}
	s := fmt.Sprintf("%s asks to %s", mention(p.Requester), p.Op)
	if p.Op.Reason != "" {
		s += "; reason: " + p.Op.Reason
	}
	return s
}

// Summary is the ops-channel account of a verdict on p, the new text of
// the request message: who decided, when, and the outcome, without a
// secret. It is empty for verdicts that change nothing (refused, already
// decided).
func (v Verdict) Summary(p Pending, mention func(userID string) string) string {
	if mention == nil {
		mention = func(id string) string { return id }
	}
	switch v.Kind {
	case VerdictApproved:
		n := v.Result.Notice
		n.Approver = "" // said first
		return fmt.Sprintf("Approved by %s at %s: %s", mention(v.DecidedBy), fmtTime(v.DecidedAt), n.Summary(mention))
	case VerdictDenied:
		return fmt.Sprintf("Denied by %s at %s: %s", mention(v.DecidedBy), fmtTime(v.DecidedAt), p.Summary(mention))
	case VerdictExpired:
		return "Expired: " + p.Summary(mention)
	case VerdictInvalid:
		return "No longer valid: " + p.Summary(mention)
	}
	return ""
}
