package commands

import (
	"encoding/base64"
	"errors"
	"fmt"
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
	For       string `json:"f,omitempty"`
	To        string `json:"o,omitempty"` // Operation.To
	Name      string `json:"n,omitempty"`
	Rows      int    `json:"k,omitempty"`
	Digest    string `json:"g,omitempty"`
	Created   int64  `json:"t"` // Unix milliseconds
	Expires   int64  `json:"x"` // Unix milliseconds
}

var b64 = base64.RawURLEncoding

// EncodePending is [Core.EncodePending]'s work.
func (c *requestService) EncodePending(p Pending) string {
	w := wirePending{ID: p.ID, Requester: p.Requester, Channel: p.Channel, Action: p.Op.Action,
		Domain: p.Op.Domain, Login: p.Op.Login, Reason: p.Op.Reason, For: p.Op.For, To: p.Op.To, Name: p.Op.Name,
		Rows: p.Op.Rows, Digest: p.Op.Digest, Created: p.Created.UnixMilli(), Expires: p.Expires.UnixMilli()}
	for {
		s := c.encode(w)
		if len(s) <= MaxEncodedPending || w.Reason == "" {
			return s
		}
		r := []rune(w.Reason)
		w.Reason = trunc(w.Reason, len(r)/2)
	}
}

func (c *requestService) encode(w wirePending) string { return c.seal(encodingVersion, w) }

// DecodePending is [Core.DecodePending]'s work.
func (c *requestService) DecodePending(s string) (Pending, error) {
	var w wirePending
	if err := c.unseal(encodingVersion, s, &w); err != nil || w.ID == "" {
		return Pending{}, ErrBadPending
	}
	created := time.UnixMilli(w.Created).UTC()
	expires := time.UnixMilli(w.Expires).UTC()
	if w.Expires == 0 { // made by the first release, which kept no expiry
		expires = created.Add(c.cfg.ApprovalTTL)
	}
	if expires.Before(created) {
		return Pending{}, ErrBadPending
	}
	return Pending{ID: w.ID, Requester: w.Requester, Channel: w.Channel,
		Op: Operation{Action: w.Action, Domain: w.Domain, Login: w.Login, Reason: w.Reason, For: w.For, To: w.To, Name: w.Name,
			Rows: w.Rows, Digest: w.Digest},
		Created: created, Expires: expires}, nil
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
	if p.Op.For != "" {
		s += " for " + mention(p.Op.For)
	}
	if p.Op.Reason != "" {
		s += "; reason: " + p.Op.Reason
	}
	return s
}

// Pending is a request waiting for an admin's decision. It travels outside
// the process (Encode, in a Slack button's value) and comes back signed.
type Pending struct {
	ID        string    // random, unique
	Requester string    // user ID
	Channel   string    // where the request was typed; may be empty
	Op        Operation // exactly what will be sent to the API (never a password)
	Created   time.Time
	Expires   time.Time // after this it can no longer be decided
}

func (c *requestService) pendingReply(p Pending) Reply {
	who := "an admin's approval"
	if c.cfg.Approvals == ApprovalsAll && c.access.mayDecide(p.Requester, p.Op) {
		who = "another admin's approval"
	}
	if n := c.cfg.ApprovalsRequired; n > 1 {
		who = fmt.Sprintf("the approval of %d admins", n)
	}
	r := Reply{
		Title: "Request waiting for approval",
		Text: fmt.Sprintf("Your request to %s needs %s. Nothing has been done yet: you will get the result here when the admins decide. The request expires at %s.",
			p.Op, who, fmtTime(p.Expires)),
		Fields:  []Field{{Label: "Request", Value: p.ID}, {Label: "Operation", Value: p.Op.String()}},
		Buttons: []Button{{Kind: ButtonCancel, Label: "Cancel request", Value: c.EncodePending(p)}},
	}
	if p.Op.Reason != "" {
		r.Fields = append(r.Fields, Field{Label: "Reason", Value: p.Op.Reason})
	}
	switch {
	case p.Op.For != "":
		r.Text += " If it is approved, the credentials go to " + c.cfg.Mention(p.Op.For) + " alone, in a direct message: nobody else, you included, sees the password."
		r.Fields = append(r.Fields, Field{Label: "Credentials for", Value: c.cfg.Mention(p.Op.For)})
	case p.Op.Action == ActionResetPassword:
		r.Text += " If it is approved, the new password comes to you alone."
	}
	return r
}

// fmtDuration writes whole hours and minutes without the zero units: 24h, 90m.
func fmtDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
