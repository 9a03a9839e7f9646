package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient/pdd"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/commands/memstore"
)

// shellUser is the shell's own user: always an admin.
const shellUser = "USHELL"

// shellHelp is the answer to "help" in the shell.
const shellHelp = `Type a slash command as in Slack, or a shell command:
  /maildomain register <domain> [reason…]
  /mailbox add <user>@<domain> [reason…]
  /maildomain help, /mailbox help
  as <USER_ID>      act as another Slack user (` + shellUser + ` is the shell's own admin)
  /maildomain check <domain>
  /mailbox add <user> <domain> [reason…]
  /mailbox add <user> [reason…]   (in MAILBOT_DEFAULT_DOMAIN)
  approve <id>      approve a pending request as the acting user
  deny <id>         deny it
  cancel <id>       withdraw your own pending request
  home              what the Slack Home tab shows the acting user
  audit             the audit trail of this session
  exit              leave (so does end of input)
`

// runShell reads slash-command lines from stdin and prints the replies:
// mailbot on a console. Without PDD_TOKEN it drives an embedded PDD
// sandbox on loopback. It acts as user as (a valid user ID: run checked).
// The shell is a thin transport over the core's one application flow: its
// messenger prints what Slack would show, marked by who would see it.
func runShell(ctx context.Context, cfg *config, as string, logger *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	api, stop, err := shellAPI(cfg, stdout)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer stop()
	ccfg := cfg.coreConfig()
	ccfg.Admins = append(slices.Clone(ccfg.Admins), shellUser)
	con, err := newConsole(stdin, stdout)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer func() { _ = con.Close() }()
	sh := &shell{out: con, user: as, values: map[string]string{}, store: memstore.New(memstore.Options{})}
	core, err := commands.New(api, sh.store, sh, ccfg, logger.Named("shell"))
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	sh.core = core
	return sh.loop(ctx, con)
}

// shellAPI is the PDD API of PDD_TOKEN, or an embedded sandbox without it;
// stop shuts the sandbox down.
func shellAPI(cfg *config, stdout io.Writer) (commands.API, func(), error) {
	if cfg.PDDToken != "" {
		api, err := pdd.New(cfg.PDDBaseURL, cfg.PDDToken.reveal(), pdd.WithTimeout(cfg.PDDTimeout), pdd.WithUserAgent("mailbot-shell"))
		if err != nil {
			return nil, nil, err
		}
		return api, func() {}, nil
	}
	sim := pddsim.New()
	token := sim.NewAccount()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln) // returns http.ErrServerClosed on stop
	}()
	stop := func() {
		_ = srv.Close()
		<-done
	}
	base := "http://" + ln.Addr().String()
	api, err := pdd.New(base, token, pdd.WithUserAgent("mailbot-shell"))
	if err != nil {
		stop()
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "No PDD_TOKEN: using an embedded PDD sandbox at %s (in memory, gone at exit). Type help for help.\n", base)
	return api, stop, nil
}

func validUser(id string) bool { return slackUserID.MatchString(id) }

// shell is one console session.
type shell struct {
	core   *commands.Core
	store  *memstore.Store
	out    io.Writer
	user   string            // the acting user
	values map[string]string // request ID → signed request, as a Slack button keeps it
}

// loop reads lines until exit, end of input or ctx's end. The reader runs
// in its own goroutine so that a signal ends the shell even while it waits
// for input; that goroutine ends with the process or at the next line.
func (sh *shell) loop(ctx context.Context, con console) error {
	type line struct {
		text string
		err  error
	}
	lines := make(chan line)
	go func() {
		for {
			text, err := con.ReadLine()
			select {
			case lines <- line{text, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		con.SetPrompt(sh.user + "> ")
		select {
		case <-ctx.Done():
			return nil
		case l := <-lines:
			if errors.Is(l.err, io.EOF) {
				return nil
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

// handle runs one line; it returns false to end the session. Before
// each line the requests past their deadline expire, as the bot's sweep
// does every 20 s.
func (sh *shell) handle(ctx context.Context, line string) bool {
	sh.core.Sweep(ctx)
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "":
	case "exit", "quit":
		return false
	case "help", "?":
		fmt.Fprint(sh.out, shellHelp)
	case "as":
		sh.switchUser(rest)
	case "approve", "deny", "cancel":
		sh.click(ctx, commands.ButtonKind(strings.ToLower(word)), rest)
	case "home":
		fmt.Fprint(sh.out, sh.core.Home(ctx, sh.user).PlainText(plainID))
	case "audit":
		sh.audit(ctx)
	default:
		if !strings.HasPrefix(word, "/") {
			fmt.Fprintf(sh.out, "Unknown input %q: type a slash command such as /maildomain help, or help.\n", clip(word, 40))
			break
		}
		sh.command(ctx, word, rest)
	}
	return true
}

func plainID(id string) string { return id }

func (sh *shell) switchUser(id string) {
	if !validUser(id) {
		fmt.Fprintf(sh.out, "%q is not a Slack user ID such as U012AB3CD; still acting as %s.\n", clip(id, 40), sh.user)
		return
	}
	sh.user = id
	role := "not an admin"
	if sh.core.IsAdmin(id) {
		role = "an admin"
	}
	fmt.Fprintf(sh.out, "Acting as %s (%s).\n", id, role)
}

// command runs a slash command as the acting user. The shell has no
// forms: a command typed bare answers with the usage.
func (sh *shell) command(ctx context.Context, cmd, text string) {
	d := sh.core.Decide(commands.Request{UserID: sh.user, Command: cmd, Text: text})
	if d.Outcome == commands.OutcomeForm {
		d = commands.Decision{Outcome: commands.OutcomeReply, Reply: d.Reply}
	}
	sh.core.Execute(ctx, commands.Route{User: sh.user}, d)
}

// click clicks a request's button as the acting user, with the signed
// value a Slack button would carry.
func (sh *shell) click(ctx context.Context, kind commands.ButtonKind, id string) {
	value, ok := sh.values[id]
	if !ok {
		fmt.Fprintf(sh.out, "No request %q in this session.\n", clip(id, 40))
		return
	}
	sh.core.Click(ctx, commands.Click{Kind: kind, Value: value, User: sh.user, Route: commands.Route{User: sh.user}})
}

// audit prints the session's audit trail, oldest first.
func (sh *shell) audit(ctx context.Context) {
	entries, err := sh.store.Audit(ctx, time.Time{}, 0, false)
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
		}
	}
	return nil
}

// PostRequest prints a new request as the ops channel would show it.
func (sh *shell) PostRequest(_ context.Context, v commands.RequestView) (commands.MessageRef, error) {
	id := v.Pending.ID
	sh.values[id] = v.Value
	fmt.Fprintf(sh.out, "[ops] Approval request %s: %s. An admin types: approve %s, or deny %s\n", id, v.Pending.Summary(nil), id, id)
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

// ShowsDecision is never asked: the session's store knows every request.
func (sh *shell) ShowsDecision(context.Context, commands.MessageRef) (bool, error) { return false, nil }

// clip cuts s to n bytes at most, for echoing input.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
