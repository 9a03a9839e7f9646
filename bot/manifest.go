package bot

import "github.com/mailbot/mailbot/commands"

// SlashCommands are the slash commands the bot handles; the Slack app
// manifest must declare exactly these.
func SlashCommands() []string { return []string{commands.CmdDomain, commands.CmdMailbox} }

// WebAPIMethods are the Slack Web API methods the bot calls, each with the
// bot scopes it needs: none when the method needs no scope, or only the
// app-level token's connections:write; several when each covers one kind of
// conversation. The Slack app manifest must request exactly the scopes
// listed here, BotEvents' and CommandsScope.
func WebAPIMethods() map[string][]string {
	return map[string][]string{
		"apps.connections.open": nil,                 // app-level token, connections:write
		"auth.test":             nil,                 // any token
		"chat.postMessage":      {"chat:write"},      // ops notices, approval requests, reminders
		"chat.update":           {"chat:write"},      // approval request outcome
		"chat.postEphemeral":    {"chat:write"},      // results for the requester
		"conversations.open":    {"im:write"},        // DM fallback for a result; hand-over messages
		"usergroups.list":       {"usergroups:read"}, // an admin group's handle
		"usergroups.users.list": {"usergroups:read"}, // an admin group's members
		"views.open":            nil,                 // the form of a bare command
		"views.update":          nil,                 // the form after a submission
		"views.publish":         nil,                 // the Home tab
		// A request message read back before an approved request runs: the
		// ops channel may be public (channels:history) or private
		// (groups:history); a hand-over's message in a direct message
		// (im:history).
		"conversations.history": {"channels:history", "groups:history", "im:history"},
		// Before a hand-over, that the person can get a direct message;
		// for a self-service reset, their confirmed e-mail.
		"users.info": {"users:read", "users:read.email"},
		// An import's owner given by e-mail.
		"users.lookupByEmail": {"users:read.email"},
		// An import's many owners, found in one listing of the workspace's
		// people (their e-mail addresses need users:read.email).
		"users.list": {"users:read", "users:read.email"},
		// Not a Web API method: an import's CSV file, downloaded from the
		// url_private of the form's file_input with the bot token.
		"url_private": {"files:read"},
	}
}

// BotEvents are the Events API events the bot subscribes to (they arrive over
// Socket Mode), each with the bot scopes it needs. The Slack app manifest
// must subscribe to exactly these.
func BotEvents() map[string][]string {
	return map[string][]string{
		"app_home_opened":         nil,                 // publish the Home tab
		"subteam_members_changed": {"usergroups:read"}, // re-read an admin group
	}
}

// CommandsScope is the scope slash commands need.
const CommandsScope = "commands"
