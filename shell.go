package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pddsim"
	"github.com/mailbot/mailbot/commands"
)

// shellUser is the shell's own user: always an admin.
const shellUser = "USHELL"

// shellHelp is the answer to "help" in the shell.
const shellHelp = `Type a slash command as in Slack, or a shell command:
  /maildomain register <domain> [reason…]
  /mailbox add <user>@<domain> [reason…]
  /maildomain help, /mailbox help
  as <USER_ID>      act as another Slack user (` + shellUser + ` is the shell's own admin)
  approve <id>      approve a pending request as the acting user
  deny <id>         deny it
  exit              leave (so does end of input)
`

// runShell reads slash-command lines from stdin and prints the replies:
// mailbot on a console. Without PDD_TOKEN it drives an embedded PDD
// sandbox on loopback.
func runShell(ctx context.Context, cfg *config, args []string, logger *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	fs.SetOutput(stdout)
	as := fs.String("as", shellUser, "act as this Slack user ID (an admin only if MAILBOT_ADMINS names it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return fmt.Errorf("shell: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("shell: unexpected argument %q; usage: mailbot shell [--as USER_ID]", fs.Arg(0))
	}
	if !validUser(*as) {
		return fmt.Errorf("shell: --as %q is not a Slack user ID such as U012AB3CD", *as)
	}
	api, stop, err := shellAPI(cfg, stdout)
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	defer stop()
	ccfg := cfg.coreConfig()
	ccfg.Admins = append(slices.Clone(ccfg.Admins), shellUser)
	core, err := commands.New(api, ccfg, logger.Named("shell"))
	if err != nil {
		return fmt.Errorf("shell: %w", err)
	}
	sh := &shell{core: core, out: stdout, user: *as, pending: map[string]string{}}
	return sh.loop(ctx, stdin, isTerminal(stdin))
}

// shellAPI is the PDD API of PDD_TOKEN, or an embedded sandbox without it;
// stop shuts the sandbox down.
func shellAPI(cfg *config, stdout io.Writer) (commands.API, func(), error) {
	if cfg.PDDToken != "" {
		api, err := apiclient.New(cfg.PDDBaseURL, cfg.PDDToken.reveal(), apiclient.WithTimeout(cfg.PDDTimeout), apiclient.WithUserAgent("mailbot-shell"))
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
	api, err := apiclient.New(base, token, apiclient.WithUserAgent("mailbot-shell"))
	if err != nil {
		stop()
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "No PDD_TOKEN: using an embedded PDD sandbox at %s (in memory, gone at exit). Type help for help.\n", base)
	return api, stop, nil
}

// isTerminal reports whether r is a terminal, so that a prompt makes sense.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func validUser(id string) bool { return slackUserID.MatchString(id) }

// shell is one console session.
type shell struct {
	core    *commands.Core
	out     io.Writer
	user    string            // the acting user
	pending map[string]string // request ID → encoded request, as a Slack button would keep it
}

// loop reads lines until exit, end of input or ctx's end. The reader runs
// in its own goroutine so that a signal ends the shell even while it waits
// for input; that goroutine ends with the process or at the next line.
func (sh *shell) loop(ctx context.Context, stdin io.Reader, prompt bool) error {
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()
	for {
		if prompt {
			fmt.Fprintf(sh.out, "%s> ", sh.user)
		}
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				if prompt {
					fmt.Fprintln(sh.out)
				}
				if err := <-readErr; err != nil {
					return fmt.Errorf("shell: reading input: %w", err)
				}
				return nil
			}
			if !sh.handle(ctx, strings.TrimSpace(line)) {
				return nil
			}
		}
	}
}

// handle runs one line; it returns false to end the session.
func (sh *shell) handle(ctx context.Context, line string) bool {
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
	case "approve", "deny":
		sh.resolve(ctx, rest, strings.EqualFold(word, "approve"))
	default:
		if !strings.HasPrefix(word, "/") {
			fmt.Fprintf(sh.out, "Unknown input %q: type a slash command such as /maildomain help, or help.\n", clip(word, 40))
			break
		}
		sh.command(ctx, word, rest)
	}
	return true
}

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

// command runs a slash command as the acting user.
func (sh *shell) command(ctx context.Context, cmd, text string) {
	d := sh.core.Decide(commands.Request{UserID: sh.user, Command: cmd, Text: text})
	switch d.Outcome {
	case commands.OutcomeRun:
		res := sh.core.Run(ctx, sh.user, "", d.Op)
		fmt.Fprint(sh.out, res.Reply.PlainText())
		fmt.Fprintln(sh.out, "[ops] "+res.Notice.Summary(nil))
	case commands.OutcomeApproval:
		sh.pending[d.Pending.ID] = sh.core.EncodePending(*d.Pending)
		fmt.Fprint(sh.out, d.Reply.PlainText())
		fmt.Fprintf(sh.out, "[ops] Approval request %s: %s. An admin types: approve %s, or deny %s\n",
			d.Pending.ID, d.Pending.Summary(nil), d.Pending.ID, d.Pending.ID)
	default:
		fmt.Fprint(sh.out, d.Reply.PlainText())
	}
}

// resolve decides a pending request as the acting user, through the same
// encoding a Slack button carries.
func (sh *shell) resolve(ctx context.Context, id string, approve bool) {
	enc, ok := sh.pending[id]
	if !ok {
		fmt.Fprintf(sh.out, "No pending request %q in this session.\n", clip(id, 40))
		return
	}
	p, err := sh.core.DecodePending(enc)
	if err != nil {
		fmt.Fprintf(sh.out, "Request %s does not decode: %v\n", id, err)
		return
	}
	v := sh.core.Resolve(ctx, p, sh.user, approve)
	fmt.Fprint(sh.out, v.Reply.PlainText())
	if s := v.Summary(p, nil); s != "" {
		fmt.Fprintln(sh.out, "[ops] "+s)
	}
	if v.ForRequester != nil {
		fmt.Fprintf(sh.out, "[to %s, only them]\n%s", p.Requester, v.ForRequester.PlainText())
	}
}

// clip cuts s to n bytes at most, for echoing input.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
