package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/config"
	"github.com/mailbot/mailbot/console"
	"github.com/mailbot/mailbot/internal/textcut"
	"github.com/mailbot/mailbot/providers"
)

// options is the command line, parsed: the subcommand and its flags.
type options struct {
	sub    string
	helped bool          // --help printed the subcommand's usage: nothing more to do
	topic  string        // help [SUBCOMMAND]
	as     string        // shell --as
	addr   string        // sim --addr
	tls    bool          // sim --tls
	prov   string        // sim --provider
	named  bool          // sim --provider was given: its first line selects it
	since  time.Duration // audit --since
	json   bool          // audit --json
}

// subcommand describes one subcommand for parsing and for its usage.
type subcommand struct {
	name     string
	synopsis string // what follows "mailbot" on the usage line
	summary  string // one line for mailbot help
	about    string // what its usage says it does
	args     int    // how many positional arguments it takes at most
	flags    func(*flag.FlagSet, *options)
	check    func(*options) error // the flags' values, after parsing
}

// subcommands is every subcommand, in the order of mailbot help.
var subcommands = []subcommand{
	{name: "serve", synopsis: "[serve]", summary: "run the Slack bot over Socket Mode",
		about: "Runs the Slack bot over Socket Mode until SIGINT or SIGTERM, then finishes the work\nin flight (at most MAILBOT_SHUTDOWN_TIMEOUT) and exits 0."},
	{name: "shell", synopsis: "shell [--as USER_ID]", summary: "type slash commands on a console (an embedded sandbox without the provider's credentials)",
		about: "Reads slash-command lines from stdin (/maildomain register example.com) and prints\neach reply; exits 0 at end of input. Type help in it for its own commands.\nWithout the credentials of MAILBOT_PROVIDER it drives an embedded sandbox; with them,\nthe real API, and the audit trail goes to MAILBOT_DATABASE_URL when it is set.",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.as, "as", console.DefaultUser, "act as this Slack `USER_ID` (an admin only if MAILBOT_ADMINS names it)")
		},
		check: func(o *options) error {
			if !commands.IsUserID(o.as) {
				return fmt.Errorf("--as %q is not a Slack user ID such as U012AB3CD", textcut.Runes(o.as, 40))
			}
			return nil
		}},
	{name: "sim", synopsis: "sim [--provider " + strings.Join(providers.Names(), "|") + "] [--addr HOST:PORT] [--tls]", summary: "run a provider's sandbox as an HTTP(S) server",
		about: "Serves the sandbox of a provider (or of several: --provider pdd,mailcow, each at its\nown address) until a signal. The first lines on stdout are the variables that make\nmailbot drive it, and SSL_CERT_FILE=<path> with --tls:\n  " +
			strings.Join(providers.SimVars(), "\n  ") + "\nWith --provider, the first line is MAILBOT_PROVIDER=<name>.",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.prov, "provider", providers.Names()[0], "serve the sandbox of `PROVIDER` ("+providers.OrList(providers.Names())+"), or of several, comma-separated")
			fs.StringVar(&o.addr, "addr", "127.0.0.1:8081", "`HOST:PORT` to listen on")
			fs.BoolVar(&o.tls, "tls", false, "serve HTTPS with a certificate made up at start")
		},
		check: func(o *options) error {
			if err := providers.CheckSimProviders(o.prov); err != nil {
				return fmt.Errorf("--provider: %w", err)
			}
			return nil
		}},
	{name: "audit", synopsis: "audit [--since DURATION] [--json]", summary: "print the audit trail from MAILBOT_DATABASE_URL",
		about: "Prints the audit trail kept in MAILBOT_DATABASE_URL, oldest first: a table, or one\nJSON object a line with --json.",
		flags: func(fs *flag.FlagSet, o *options) {
			o.since = 168 * time.Hour
			fs.Var((*console.SinceFlag)(&o.since), "since", "print the entries of the last `DURATION` (30d, 12h, 90m)")
			fs.BoolVar(&o.json, "json", false, "print one JSON object a line")
		},
		check: func(o *options) error {
			if o.since <= 0 {
				return fmt.Errorf("--since must be a positive duration such as 30d, 12h or 90m, got %s", o.since)
			}
			return nil
		}},
	{name: "version", synopsis: "version", summary: "print the version",
		about: "Prints one line: mailbot <version> (<commit>, <go version>)."},
	{name: "help", synopsis: "help [SUBCOMMAND]", summary: "print this help, or a subcommand's usage", args: 1,
		about: "Lists the subcommands and every environment variable with its default and meaning;\nwith a SUBCOMMAND, prints its usage (as mailbot SUBCOMMAND --help does)."},
}

// usageError is a command line mailbot does not understand: exit status 2.
type usageError struct {
	msg   string
	usage string // the usage of the subcommand concerned, or mailbot's
}

func (e *usageError) Error() string { return e.msg }

// parseArgs reads the command line (without the program name) before any
// configuration. On a subcommand's --help it writes the usage to stdout
// and sets helped.
func parseArgs(args []string, stdout io.Writer) (options, error) {
	sc, rest, err := lookupSubcommand(args)
	if err != nil {
		return options{}, err
	}
	name := sc.name
	o := options{sub: name}
	fs := sc.flagSet(&o)
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		o.helped = true
		_, err := io.WriteString(stdout, sc.usage())
		return o, err
	} else if err != nil {
		return o, &usageError{msg: name + ": " + err.Error(), usage: sc.usage()}
	}
	if err := sc.checkArgs(fs, &o); err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) { o.named = o.named || f.Name == "provider" })
	if sc.check != nil {
		if err := sc.check(&o); err != nil {
			return o, &usageError{msg: name + ": " + err.Error(), usage: sc.usage()}
		}
	}
	return o, nil
}

// lookupSubcommand is the subcommand args name (serve without one; the
// help and version flags stand for theirs) and the arguments after its
// name.
func lookupSubcommand(args []string) (_ subcommand, rest []string, _ error) {
	name, rest := "serve", args
	if len(args) > 0 {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	i := slices.IndexFunc(subcommands, func(sc subcommand) bool { return sc.name == name })
	if i < 0 {
		what := "subcommand"
		if strings.HasPrefix(name, "-") {
			what = "flag"
		}
		return subcommand{}, nil, &usageError{msg: fmt.Sprintf("unknown %s %q", what, textcut.Runes(name, 40)), usage: mainUsage()}
	}
	return subcommands[i], rest, nil
}

// checkArgs checks the positional arguments left in fs after the flags:
// no more than the subcommand takes, and help's a subcommand's name,
// which it sets as o's topic.
func (sc subcommand) checkArgs(fs *flag.FlagSet, o *options) error {
	if fs.NArg() > sc.args {
		return &usageError{msg: fmt.Sprintf("%s: unexpected argument %q", sc.name, textcut.Runes(fs.Arg(sc.args), 40)), usage: sc.usage()}
	}
	if sc.name == "help" && fs.NArg() == 1 {
		o.topic = fs.Arg(0)
		if !slices.ContainsFunc(subcommands, func(sc subcommand) bool { return sc.name == o.topic }) {
			return &usageError{msg: fmt.Sprintf("help: unknown subcommand %q", textcut.Runes(o.topic, 40)), usage: sc.usage()}
		}
	}
	return nil
}

// flagSet is the subcommand's flags, bound to o; it prints nothing itself.
func (sc subcommand) flagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("mailbot "+sc.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if sc.flags != nil {
		sc.flags(fs, o)
	}
	return fs
}

// usage is the subcommand's usage: its synopsis, what it does, its flags.
func (sc subcommand) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: mailbot %s\n\n%s\n", sc.synopsis, sc.about)
	fs := sc.flagSet(&options{})
	if sc.flags != nil {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	b.WriteString("\nThe configuration comes from the environment: see mailbot help.\n")
	return b.String()
}

// mainUsage lists the subcommands.
func mainUsage() string {
	var b strings.Builder
	b.WriteString("usage: mailbot [SUBCOMMAND] [FLAGS]\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, sc := range subcommands {
		fmt.Fprintf(tw, "  mailbot %s\t%s\n", sc.synopsis, sc.summary)
	}
	fmt.Fprintf(tw, "  mailbot SUBCOMMAND --help\tprint the usage of SUBCOMMAND\n")
	_ = tw.Flush() // a strings.Builder does not fail
	return b.String()
}

// printHelp is mailbot help: the subcommands and every environment
// variable with its default and meaning, generated from config's tags; or
// the usage of the subcommand topic.
func printHelp(w io.Writer, topic string) error {
	if i := slices.IndexFunc(subcommands, func(sc subcommand) bool { return sc.name == topic }); i >= 0 {
		_, err := io.WriteString(w, subcommands[i].usage())
		return err
	}
	var b strings.Builder
	b.WriteString("mailbot: administer mail domains and mailboxes (" + providers.OrList(providers.Titles()) + ") from Slack.\n\n")
	b.WriteString(mainUsage())
	b.WriteString("\nEnvironment (a set but empty variable takes its default, except where said):\n")
	config.WriteVars(&b, providers.Rules())
	_, err := io.WriteString(w, b.String())
	return err
}
