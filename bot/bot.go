// Package bot is mailbot's Slack adapter: it receives slash commands and
// button clicks over Socket Mode, acknowledges them at once, hands them to
// the transport-free core (package commands) and delivers the replies:
// results to the person who asked, ephemerally, and notifications without
// secrets to the ops channel.
package bot

import "github.com/mailbot/mailbot/commands"

// SlashCommands are the slash commands the bot handles; the Slack app
// manifest must declare exactly these.
func SlashCommands() []string { return []string{commands.CmdDomain, commands.CmdMailbox} }

// WebAPIMethods are the Slack Web API methods the bot calls, each with the
// bot scope it needs ("" when the method needs none, or only the app-level
// token's connections:write). The Slack app manifest must request exactly
// the scopes listed here.
func WebAPIMethods() map[string]string {
	return map[string]string{
		"apps.connections.open": "",           // app-level token, connections:write
		"auth.test":             "",           // any token
		"chat.postMessage":      "chat:write", // ops notifications and approval requests
		"chat.update":           "chat:write", // approval request outcome
		"chat.postEphemeral":    "chat:write", // results for the requester
		"conversations.open":    "im:write",   // DM fallback for an approval's result
	}
}

// CommandsScope is the scope slash commands need.
const CommandsScope = "commands"
