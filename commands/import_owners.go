package commands

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.uber.org/zap"
)

// PeopleDirectory is what the transport may know besides People: everyone
// it can reach, listed at once (Slack's users.list, a page of up to 1,000
// people a call), which costs far fewer calls than a look-up per person
// when an import names many owners.
type PeopleDirectory interface {
	// EachPerson calls fn for every person the transport lists. An error
	// means the list could not be read to its end.
	EachPerson(ctx context.Context, fn func(userID string, p Person)) error
}

// The owner check's bounds: up to directoryFrom owners are looked up one
// by one, lookupsAtOnce at a time (Slack's users.lookupByEmail allows 50
// a minute, users.info 100); more read the directory once.
const (
	directoryFrom = 10
	lookupsAtOnce = 4
)

// ownerCheck is what an owner as given turned out to be: a user ID, or
// why not.
type ownerCheck struct {
	id  string
	why string
}

// checkOwners resolves and checks the owners as given (a Slack user ID,
// or an e-mail the transport finds); each must be reachable by a direct
// message.
func (c *importService) checkOwners(ctx context.Context, owners []string) map[string]ownerCheck {
	out := make(map[string]ownerCheck, len(owners))
	var ask []string
	for _, given := range owners {
		if oc, done := c.ownerForm(given); done {
			out[given] = oc
			continue
		}
		ask = append(ask, given)
	}
	if dir, ok := c.cfg.People.(PeopleDirectory); ok && len(ask) > directoryFrom {
		ask = c.fromDirectory(ctx, dir, ask, out)
	}
	c.lookUp(ctx, ask, out)
	return out
}

// ownerForm answers an owner that needs no look-up: neither an ID nor an
// e-mail, or an e-mail where the transport cannot look one up.
func (c *importService) ownerForm(given string) (ownerCheck, bool) {
	switch {
	case IsUserID(given):
		if c.cfg.People == nil {
			return ownerCheck{why: c.handovers.reachable(context.Background(), given)}, true
		}
		return ownerCheck{}, false
	case !strings.Contains(given, "@"):
		return ownerCheck{why: fmt.Sprintf("the owner %q is neither a Slack user ID (U…) nor an e-mail address.", trunc(cleanText(given), 40))}, true
	}
	if _, ok := c.cfg.People.(PeopleByEmail); !ok {
		return ownerCheck{why: "this mailbot cannot look people up by e-mail: give the owner's Slack user ID (U…)."}, true
	}
	return ownerCheck{}, false
}

// fromDirectory answers the owners it finds in the transport's directory
// and returns those left to ask one by one: user IDs it does not list
// (a person of another workspace is known to users.info only).
func (c *importService) fromDirectory(ctx context.Context, dir PeopleDirectory, ask []string, out map[string]ownerCheck) []string {
	want := make(map[string]string, len(ask)) // user ID or lower-case e-mail -> as given
	for _, given := range ask {
		if IsUserID(given) {
			want[given] = given
		} else {
			want[strings.ToLower(given)] = given
		}
	}
	found := map[string]ownerCheck{}
	err := dir.EachPerson(ctx, func(id string, p Person) {
		for _, key := range []string{id, strings.ToLower(p.Email)} {
			if given, ok := want[key]; ok && key != "" {
				found[given] = ownerCheck{id: id, why: c.handovers.unreachable(id, p)}
			}
		}
	})
	if err != nil {
		c.logger.Warn("people not listed", zap.Error(err))
		for _, given := range ask {
			out[given] = ownerCheck{why: notLookedUp(given)}
		}
		return nil
	}
	var left []string
	for _, given := range ask {
		switch oc, ok := found[given]; {
		case ok:
			out[given] = oc
		case IsUserID(given):
			left = append(left, given)
		default:
			out[given] = ownerCheck{why: noSuchEmail(given)}
		}
	}
	return left
}

// lookUp asks the transport about each owner, lookupsAtOnce at a time.
func (c *importService) lookUp(ctx context.Context, ask []string, out map[string]ownerCheck) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, lookupsAtOnce)
	for _, given := range ask {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			oc := c.lookUpOne(ctx, given)
			mu.Lock()
			out[given] = oc
			mu.Unlock()
		}()
	}
	wg.Wait()
}

// lookUpOne resolves and checks one owner: users.info for an ID,
// users.lookupByEmail (which answers the person too) for an e-mail.
func (c *importService) lookUpOne(ctx context.Context, given string) ownerCheck {
	if IsUserID(given) {
		return ownerCheck{id: given, why: c.handovers.reachable(ctx, given)}
	}
	id, p, found, err := c.cfg.People.(PeopleByEmail).UserByEmail(ctx, given)
	switch {
	case err != nil:
		c.logger.Warn("owner not looked up", zap.Error(err))
		return ownerCheck{why: notLookedUp(given)}
	case !found:
		return ownerCheck{why: noSuchEmail(given)}
	}
	return ownerCheck{id: id, why: c.handovers.unreachable(id, p)}
}

func notLookedUp(given string) string {
	return fmt.Sprintf("mailbot could not look up %s in Slack. Try again in a minute.", trunc(given, 60))
}

func noSuchEmail(given string) string {
	return fmt.Sprintf("nobody in Slack has the e-mail address %s.", trunc(given, 60))
}

// Approval reports whether the import will need an admin's approval (its
// form asks for a reason).
func (ic *ImportCheck) Approval() bool { return ic.approval }

// Checking is what the import's form says while its owners are checked.
func (ic *ImportCheck) Checking() string {
	return fmt.Sprintf("Checking the owners of %s (%s) in Slack. The outcome shows here; if you close this form, mailbot tells you in a message.", plural(len(ic.rows), "row", "rows"), plural(len(ic.owners), "person", "people"))
}

// ImportChecked is what the import's form says once d, a checked import,
// is on its way.
func ImportChecked(d Decision) string {
	n := 0
	if d.Import != nil {
		n = len(d.Import.Rows)
	}
	if d.Step == StepApproval {
		return fmt.Sprintf("Every row is fine: the import of %s now waits for an admin's approval. You may close this form.", mailboxes(n))
	}
	return fmt.Sprintf("Every row is fine: mailbot is creating %s. Progress comes in your direct message with mailbot. You may close this form.", mailboxes(n))
}

// ImportRefused is the form's lead above its rows' problems.
const ImportRefused = "Nothing was imported: these rows have problems. Fix them and submit again."

// ImportProblems is the message of an import its rows' problems refused,
// for a requester who closed the form.
func ImportProblems(problems string) Reply {
	return Reply{Title: "Import not started", Error: true,
		Text: "Nothing was imported: these rows have problems. Fix them and run /mailbox import again.\n" + problems}
}

// ReplyImportNotChecked is the message of an import whose check never
// ran (mailbot stopped first).
var ReplyImportNotChecked = Reply{Title: "Import not checked: mailbot is restarting", Error: true,
	Text: "mailbot stopped before it could check your import. Nothing was imported: submit it again in a minute."}
