// Package console is mailbot's shell: slash commands typed on a console
// and their replies printed as Slack would show them, through the same
// core as the Slack bot (a transport beside bot), with its terminal
// handling; and the text of mailbot audit's trail.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// DefaultUser is the shell's own user: always an admin, and whom the
// shell acts as unless told otherwise.
const DefaultUser = "USHELL"

// shellLines is the shell's own lines, for its help.
const shellLines = `Shell lines:
  help              this help
  as <USER_ID>      act as another Slack user (` + DefaultUser + ` is the shell's own admin)
  approve <ID>      approve a pending request as the acting user
  deny <ID>         deny it
  cancel <ID>       withdraw your own pending request
  more              the next page of the last list of mailboxes
  show <ID>         click Show my password of a hand-over, as the acting user
  import <FILE> [reason…]  create the mailboxes of a CSV file's rows (address[,owner[,given name[,family name]]])
  email <ADDRESS>   give the acting user a confirmed Slack e-mail (for self-service)
  home              what the Slack Home tab shows the acting user
  audit             the audit trail of this session
  exit              leave (so does end of input)
`

// shellHelp is the answer to "help": the slash commands from the
// commands' own registry (less the forms, which the shell does not
// have), then the shell's lines.
func shellHelp() string {
	var b strings.Builder
	b.WriteString("Slash commands, typed as in Slack:\n")
	for _, f := range withoutForms(commands.Help("").Fields) {
		fmt.Fprintf(&b, "  %s\n      %s\n", f.Label, f.Value)
	}
	b.WriteString(shellLines)
	return b.String()
}

// withoutForms drops the usage lines of the forms from fields: in the
// registry, a command without words ("/mailbox") opens a form.
func withoutForms(fields []commands.Field) []commands.Field {
	return slices.DeleteFunc(slices.Clone(fields), func(f commands.Field) bool {
		return strings.HasPrefix(f.Label, "/") && !strings.Contains(f.Label, " ")
	})
}

// Options are what main wires the shell from.
type Options struct {
	// Router is every provider in use, real or an embedded sandbox.
	Router *commands.Router
	// Store keeps the session's requests and audit trail.
	Store commands.Store
	// Core is the core's configuration; Run adds the shell's own admin,
	// its source and its directory of people.
	Core commands.Config
	// As is the acting user at start (a valid user ID: main checked).
	As string
	// Real is set when the shell drives a real provider: it then says
	// whom it acts as at start.
	Real   bool
	Logger *zap.Logger
}

// Run reads slash-command lines from stdin and prints the replies:
// mailbot on a console, until exit, end of input or ctx's end. The shell
// is a thin transport over the core's one application flow: its messenger
// prints what Slack would show, marked by who would see it.
func Run(ctx context.Context, o Options, stdin io.Reader, stdout io.Writer) error {
	ccfg := o.Core
	ccfg.Source = commands.SourceShell
	ccfg.Admins = append(slices.Clone(ccfg.Admins), DefaultUser)
	con, err := newConsole(stdin, stdout)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer func() { _ = con.Close() }()
	sh := &shell{out: con, user: o.As, values: map[string]string{}, store: o.Store, started: time.Now(),
		handovers: map[string]string{}, people: &shellPeople{emails: map[string]string{}}}
	ccfg.People = sh.people
	core, err := commands.NewRouted(o.Router, sh.store, sh, ccfg, o.Logger.Named("shell"))
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	sh.core = core
	if o.Real {
		fmt.Fprintf(sh.out, "Acting as %s (%s).\n", sh.user, sh.role(sh.user))
	}
	return sh.loop(ctx, con)
}

func validUser(id string) bool { return commands.IsUserID(id) }

// shell is one console session.
type shell struct {
	core   *commands.Core
	store  commands.Store
	out    io.Writer
	user   string            // the acting user
	values map[string]string // request ID → signed request, as a Slack button keeps it
	more   string            // the signed value of the last "More" button
	// handovers are the signed values of the Show buttons, by hand-over ID.
	handovers map[string]string
	// bundles are the imports' hand-overs to their requester, shown as
	// soon as they are offered: the shell has no buttons.
	bundles []string
	people  *shellPeople
	started time.Time // the session's start: its audit trail begins here
}

// loop reads lines until exit, end of input or ctx's end. The reader runs
// in its own goroutine so that a signal ends the shell even while it waits
// for input; that goroutine ends with the process or at the next line.
func (sh *shell) loop(ctx context.Context, con terminal) error {
	lines := readLines(ctx, con)
	for {
		con.SetPrompt(sh.user + "> ")
		select {
		case <-ctx.Done():
			return nil
		case l := <-lines:
			if errors.Is(l.err, io.EOF) {
				return nil
			}
			if errors.Is(l.err, errLineTooLong) {
				fmt.Fprintf(sh.out, "Invalid input: the line is over %d KiB, too long to be a command; nothing was done.\n", maxLineBytes>>10)
				continue
			}
			if l.err != nil {
				return fmt.Errorf("shell: reading input: %w", l.err)
			}
			if !sh.handle(ctx, strings.TrimSpace(l.text)) {
				return nil
			}
		}
	}
}

// inputLine is one line the console read, or the error that ended it.
type inputLine struct {
	text string
	err  error
}

// readLines reads con's lines in a goroutine of its own until an error
// other than a line too long, or until ctx ends while a line waits to be
// taken.
func readLines(ctx context.Context, con terminal) <-chan inputLine {
	lines := make(chan inputLine)
	go func() {
		for {
			text, err := con.ReadLine()
			select {
			case lines <- inputLine{text, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				return
			}
		}
	}()
	return lines
}

// handle runs one line; it returns false to end the session. Before
// each line the requests past their deadline expire, as the bot's sweep
// does every 20 s.
func (sh *shell) handle(ctx context.Context, line string) bool {
	sh.core.Sweep(ctx)
	defer sh.showBundles(ctx)
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "":
	case "exit", "quit":
		return false
	case "help", "?":
		fmt.Fprint(sh.out, shellHelp())
	case "as":
		sh.switchUser(rest)
	case "approve", "deny", "cancel":
		sh.click(ctx, commands.ButtonKind(strings.ToLower(word)), rest)
	case "more":
		sh.showMore(ctx)
	case "show":
		sh.show(ctx, rest)
	case "import":
		sh.importFile(ctx, rest)
	case "email":
		sh.setEmail(rest)
	case "home":
		fmt.Fprint(sh.out, sh.core.Home(ctx, sh.user).PlainText(plainID))
	case "audit":
		sh.audit(ctx)
	default:
		if !strings.HasPrefix(word, "/") {
			fmt.Fprintf(sh.out, "Unknown input %q: type a slash command such as /maildomain help, or help.\n", textcut.Runes(word, 40))
			break
		}
		sh.command(ctx, word, rest)
	}
	return true
}

func plainID(id string) string { return id }

// showMore clicks the last list's More button as the acting user: the
// list's next page.
func (sh *shell) showMore(ctx context.Context) {
	if sh.more == "" {
		fmt.Fprintln(sh.out, "Nothing more to show: more pages through the last list of mailboxes.")
		return
	}
	value := sh.more
	sh.more = ""
	sh.core.Click(ctx, commands.Click{Kind: commands.ButtonMore, Value: value, User: sh.user, Route: commands.Route{User: sh.user}})
}

func (sh *shell) switchUser(id string) {
	if !validUser(id) {
		fmt.Fprintf(sh.out, "%q is not a Slack user ID such as U012AB3CD; still acting as %s.\n", textcut.Runes(id, 40), sh.user)
		return
	}
	sh.user = id
	fmt.Fprintf(sh.out, "Acting as %s (%s).\n", id, sh.role(id))
}

// role says whether user is an admin, and why when it is the shell's own.
func (sh *shell) role(user string) string {
	switch {
	case user == DefaultUser:
		return "the shell's own user, an admin"
	case sh.core.IsAdmin(user):
		return "an admin"
	}
	return "not an admin"
}

// command runs a slash command as the acting user. The shell has no
// forms: a command that would open one answers with the command's help.
func (sh *shell) command(ctx context.Context, cmd, text string) {
	d := sh.core.Decide(commands.Request{UserID: sh.user, Command: cmd, Text: escapeMentions(text)})
	if d.Step == commands.StepForm {
		d = sh.core.Decide(commands.Request{UserID: sh.user, Command: cmd, Text: "help"})
		d.Reply.Fields = withoutForms(d.Reply.Fields)
		d.Reply.Text = strings.TrimSpace("The shell has no forms: type the command with its words. " + d.Reply.Text)
	}
	if d.Step == commands.StepReply {
		d.Reply.Fields = withoutForms(d.Reply.Fields) // usage and help: the shell opens no form
	}
	sh.core.Execute(ctx, commands.Route{User: sh.user}, d)
}

// click clicks a request's button as the acting user, with the signed
// value a Slack button would carry.
func (sh *shell) click(ctx context.Context, kind commands.ButtonKind, id string) {
	if id == "" {
		fmt.Fprintf(sh.out, "Type %s and the request's ID, such as: %s abcdefghij (the request's line gives its ID).\n", kind, kind)
		return
	}
	value, ok := sh.values[id]
	if !ok {
		fmt.Fprintf(sh.out, "No request %q in this session.\n", textcut.Runes(id, 40))
		return
	}
	sh.core.Click(ctx, commands.Click{Kind: kind, Value: value, User: sh.user, Route: commands.Route{User: sh.user}})
}

// audit prints the session's audit trail, oldest first.
func (sh *shell) audit(ctx context.Context) {
	entries, err := sh.store.Audit(ctx, sh.started, 0, false)
	if err != nil {
		fmt.Fprintf(sh.out, "The audit trail cannot be read: %v\n", err)
		return
	}
	fmt.Fprintf(sh.out, "Audit trail of this session: %d entries\n", len(entries))
	for _, e := range entries {
		fmt.Fprintln(sh.out, "  "+e.Line(plainID))
	}
}

// Deliver prints r, marked when the acting user is not the one who sees it.
func (sh *shell) Deliver(_ context.Context, to commands.Route, r commands.Reply) error {
	if to.User != sh.user {
		fmt.Fprintf(sh.out, "[to %s, only them]\n", to.User)
	}
	fmt.Fprint(sh.out, r.PlainText())
	for _, b := range r.Buttons {
		switch b.Kind {
		case commands.ButtonCancel:
			if p, err := sh.core.DecodePending(b.Value); err == nil {
				fmt.Fprintf(sh.out, "  [%s: type cancel %s]\n", b.Label, p.ID)
			}
		case commands.ButtonCheckDNS:
			if d, ok := sh.core.CheckDomain(b.Value); ok {
				fmt.Fprintf(sh.out, "  [%s: type /maildomain check %s]\n", b.Label, d)
			}
		case commands.ButtonMore:
			sh.more = b.Value
			fmt.Fprintf(sh.out, "  [%s: type more]\n", b.Label)
		}
	}
	return nil
}

// PostRequest prints a new request as the ops channel would show it.
func (sh *shell) PostRequest(_ context.Context, v commands.RequestView) (commands.MessageRef, error) {
	id := v.Pending.ID
	sh.values[id] = v.Value
	text := v.Pending.Summary(nil) + "."
	if v.Text != "" {
		text += " " + v.Text // what the message says besides, as a reset's word on where the password goes
	}
	fmt.Fprintf(sh.out, "[ops] Approval request %s: %s An admin types: approve %s, or deny %s\n", id, text, id, id)
	return commands.MessageRef{Channel: "shell", TS: id}, nil
}

// UpdateRequest prints the request's new state.
func (sh *shell) UpdateRequest(_ context.Context, ref commands.MessageRef, v commands.RequestView) error {
	if v.Value != "" {
		sh.values[ref.TS] = v.Value
	}
	fmt.Fprintf(sh.out, "[ops] Request %s (%s): %s\n", ref.TS, v.State, v.Text)
	return nil
}

// Notify prints an ops notice.
func (sh *shell) Notify(_ context.Context, text string) error {
	fmt.Fprintln(sh.out, "[ops] "+text)
	return nil
}

// Remind prints a reminder.
func (sh *shell) Remind(_ context.Context, ref commands.MessageRef, text string) error {
	fmt.Fprintf(sh.out, "[ops, thread of %s] %s\n", ref.TS, text)
	return nil
}

// RequestValue is never asked: the session's store knows every request
// and where its message is.
func (sh *shell) RequestValue(context.Context, commands.MessageRef) (string, error) { return "", nil }
