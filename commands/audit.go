package commands

import (
	"fmt"
	"strings"
)

// entry is the one way to make an audit entry: at now, from this
// mailbot's source (SourceSlack, SourceShell), naming the provider of its
// domain. The caller adds what else it knows.
func (c *shared) entry(ev Event, requestID, actor string, action Action, domain, login string) AuditEntry {
	return AuditEntry{Time: c.cfg.Now().UTC(), Source: c.cfg.Source, Provider: c.nameAt(domain), RequestID: requestID,
		Event: ev, Actor: actor, Action: action, Domain: domain, Login: login}
}

// Target is what an entry is about: its mailbox, else its domain (an
// import's: its domains).
func (e AuditEntry) Target() string {
	if e.Login != "" {
		return e.Login + "@" + e.Domain
	}
	return e.Domain
}

// Details says what an entry records besides when, who and what, as
// every reader of the trail shows it (mailbot audit, the shell's audit,
// the Home tab): key=value, the second address (an alias's mailbox, an
// offboarding's successor), the provider, the domain's status and stage,
// an import's row counts or the code, whom the credentials went to
// (through mention), and the mailbox's ID at the provider.
func (e AuditEntry) Details(mention func(string) string) []string {
	var out []string
	code := e.Code
	if e.Action == ActionImport && strings.HasPrefix(code, "created=") {
		out, code = append(out, code), "" // the row counts
	}
	for _, kv := range [][2]string{{"to", e.To}, {"provider", e.Provider}, {"status", e.Status}, {"stage", e.Stage}, {"code", code}} {
		if kv[1] != "" {
			out = append(out, kv[0]+"="+kv[1])
		}
	}
	if e.HandedTo != "" {
		out = append(out, "handed_to="+mention(e.HandedTo))
	}
	if e.UID != "" {
		out = append(out, "uid="+e.UID)
	}
	return out
}

// Line describes an audit entry in one line, without a secret: the Home
// tab's and the shell's, with the details that mailbot audit shows.
func (e AuditEntry) Line(mention func(string) string) string {
	s := fmt.Sprintf("%s  %s  %s %s by %s", e.Time.UTC().Format("2006-01-02 15:04:05"), e.Event, e.Action, e.Target(), mention(e.Actor))
	if len(e.Deciders) > 0 {
		names := make([]string, len(e.Deciders))
		for i, d := range e.Deciders {
			names[i] = mention(d)
		}
		s += ", decided by " + strings.Join(names, ", ")
	}
	if e.Outcome != "" {
		s += ": " + e.Outcome
	}
	if d := e.Details(mention); len(d) > 0 {
		s += " " + strings.Join(d, " ")
	}
	if e.Source != "" {
		s += " source=" + e.Source
	}
	if e.RequestID != "" {
		s += " request=" + e.RequestID
	}
	return s
}
