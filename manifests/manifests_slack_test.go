package manifests_test

// The Slack app manifest against the bot: commands, scopes and events, each
// scope with its reason.

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/mailbot/mailbot/bot"
	"github.com/mailbot/mailbot/commands"
)

// needs maps every bot scope to what needs it: the methods and events that
// the bot declares, and the slash commands.
func needs() map[string][]string {
	need := map[string][]string{bot.CommandsScope: bot.SlashCommands()}
	for _, m := range []map[string][]string{bot.WebAPIMethods(), bot.BotEvents()} {
		for name, scopes := range m {
			for _, s := range scopes {
				need[s] = append(need[s], name)
			}
		}
	}
	return need
}

func TestManifestSlackApp(t *testing.T) {
	t.Parallel()
	var app slack.Manifest
	readYAMLStrict(t, slackAppPath, &app)

	s := app.Settings
	if !s.SocketModeEnabled {
		t.Error("settings.socket_mode_enabled is not true")
	}
	if s.Interactivity == nil || !s.Interactivity.IsEnabled {
		t.Error("settings.interactivity.is_enabled is not true: the buttons and forms need it")
	} else if s.Interactivity.RequestUrl != "" || s.Interactivity.MessageMenuOptionsUrl != "" {
		t.Error("settings.interactivity has a URL: Socket Mode needs none")
	}
	var events []string
	if es := s.EventSubscriptions; es != nil {
		if es.RequestUrl != "" {
			t.Error("settings.event_subscriptions has a request_url: Socket Mode needs none")
		}
		if len(es.UserEvents) > 0 {
			t.Errorf("user events %q: mailbot acts only as its bot", es.UserEvents)
		}
		events = slices.Sorted(slices.Values(es.BotEvents))
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(bot.BotEvents())), events); diff != "" {
		t.Errorf("bot events differ from bot.BotEvents() (-want +got):\n%s", diff)
	}

	var commands []string
	for _, c := range app.Features.SlashCommands {
		commands = append(commands, c.Command)
		if c.Url != "" {
			t.Errorf("%s has a url: Socket Mode needs none", c.Command)
		}
		if c.Description == "" || c.UsageHint == "" {
			t.Errorf("%s: description %q, usage_hint %q: want both", c.Command, c.Description, c.UsageHint)
		}
		// Mentions arrive as user IDs ("for @person"); the reasons are shown
		// as plain text whatever escaping made of them.
		if !c.ShouldEscape {
			t.Errorf("%s: should_escape is false: a typed @person would arrive as text, not as a user ID", c.Command)
		}
		checkUsageHint(t, c)
	}
	slices.Sort(commands)
	if diff := cmp.Diff(slices.Sorted(slices.Values(bot.SlashCommands())), commands); diff != "" {
		t.Errorf("slash commands differ from bot.SlashCommands() (-want +got):\n%s", diff)
	}

	sc := app.OAuthConfig.Scopes
	if diff := cmp.Diff(slices.Sorted(maps.Keys(needs())), slices.Sorted(slices.Values(sc.Bot))); diff != "" {
		t.Errorf("bot scopes differ from what bot.WebAPIMethods(), bot.BotEvents() and the commands need (-want +got):\n%s", diff)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(sc.Bot)))) != len(sc.Bot) {
		t.Errorf("bot scopes %q: one is listed twice", sc.Bot)
	}
	if len(sc.User)+len(sc.UserOptional)+len(sc.BotOptional) > 0 {
		t.Errorf("scopes %+v: want bot scopes only; mailbot acts only as its bot", sc)
	}
	checkAppHome(t, app.Features)
	checkDisplay(t, app)
}

// releaseSubcommands are the sub-commands of this release, which the usage
// hints name even before the bot's help lists them all.
var releaseSubcommands = map[string][]string{
	"/maildomain": {"register", "check", "status", "help"},
	"/mailbox":    {"add", "reset", "block", "unblock", "list", "help"},
}

// checkUsageHint checks that a command's usage_hint names every sub-command:
// this release's, and each that the bot's help shows (its second word).
func checkUsageHint(t *testing.T, c slack.ManifestSlashCommand) {
	t.Helper()
	want := slices.Clone(releaseSubcommands[c.Command])
	if len(want) == 0 {
		t.Errorf("%s: no sub-commands known for it; add them to releaseSubcommands", c.Command)
	}
	for _, f := range commands.Help(c.Command).Fields {
		if words := strings.Fields(f.Label); len(words) > 1 && words[0] == c.Command {
			want = append(want, words[1])
		}
	}
	hinted := regexp.MustCompile(`[a-z]+`).FindAllString(c.UsageHint, -1)
	for _, sub := range want {
		if !slices.Contains(hinted, sub) {
			t.Errorf("%s: usage_hint %q does not name the sub-command %s", c.Command, c.UsageHint, sub)
		}
	}
}

// checkAppHome checks the App Home's tabs against what the bot does.
func checkAppHome(t *testing.T, f slack.Features) {
	t.Helper()
	_, publishes := bot.WebAPIMethods()["views.publish"]
	_, opened := bot.BotEvents()["app_home_opened"]
	if f.AppHome.HomeTabEnabled != (publishes && opened) {
		t.Errorf("app_home.home_tab_enabled = %v, want %v: the bot publishes the Home tab when app_home_opened arrives",
			f.AppHome.HomeTabEnabled, publishes && opened)
	}
	// The bot's direct messages (conversations.open) show in the Messages
	// tab; it reads none, so the tab is read-only.
	if _, dms := bot.WebAPIMethods()["conversations.open"]; dms && !f.AppHome.MessagesTabEnabled {
		t.Error("app_home.messages_tab_enabled is false: the bot's direct messages would not show")
	}
	if !f.AppHome.MessagesTabReadOnlyEnabled {
		t.Error("app_home.messages_tab_read_only_enabled is false: the bot reads no direct message")
	}
	if f.BotUser.DisplayName == "" {
		t.Error("features.bot_user is missing: the bot scopes need a bot user")
	}
}

// checkDisplay checks the limits that Slack enforces when it imports a
// manifest.
func checkDisplay(t *testing.T, app slack.Manifest) {
	t.Helper()
	d := app.Display
	if d.Name == "" || len([]rune(d.Name)) > 35 {
		t.Errorf("display_information.name %q: want 1 to 35 characters", d.Name)
	}
	if n := len([]rune(d.Description)); n == 0 || n > 140 {
		t.Errorf("display_information.description has %d characters, want 1 to 140", n)
	}
	if n := len([]rune(d.LongDescription)); n != 0 && (n < 175 || n > 4000) {
		t.Errorf("display_information.long_description has %d characters, want 175 to 4000", n)
	}
}

// TestManifestSlackScopesExplained checks that the comment over each bot
// scope names every method, event and command that needs it: least
// privilege, with the reason in the file.
func TestManifestSlackScopesExplained(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(slackAppPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	seq := yamlPath(&doc, "oauth_config", "scopes", "bot")
	if seq == nil || seq.Kind != yamlv3.SequenceNode {
		t.Fatal("no oauth_config.scopes.bot list")
	}
	need := needs()
	for _, item := range seq.Content {
		comment := item.HeadComment + " " + item.LineComment
		if strings.TrimSpace(comment) == "" {
			t.Errorf("scope %s has no comment saying why mailbot needs it", item.Value)
		}
		for _, who := range need[item.Value] {
			if !namedIn(comment, who) {
				t.Errorf("the comment over scope %s does not name %s, which needs it", item.Value, who)
			}
		}
	}
}

// namedIn reports whether text names a method, event or command as a whole
// word: usergroups.list is not named by usergroups.list.all.
func namedIn(text, name string) bool {
	return regexp.MustCompile(`(^|[^\w./])` + regexp.QuoteMeta(name) + `($|[^\w.]|\.($|\s))`).MatchString(text)
}

// yamlPath walks a YAML document down through mapping keys.
func yamlPath(n *yamlv3.Node, keys ...string) *yamlv3.Node {
	if n.Kind == yamlv3.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n.Kind != yamlv3.MappingNode {
			return nil
		}
		var next *yamlv3.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}
