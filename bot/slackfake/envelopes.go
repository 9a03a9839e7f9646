package slackfake

import (
	"fmt"
	"strings"
)

// Sender sends envelopes on one connection, or round-robin; Server's own
// envelope methods are those of Via(0).
type Sender struct {
	s    *Server
	conn int
}

// Via returns a Sender whose envelopes go to the connection id (see
// ConnIDs); 0 means round-robin over the open connections, as Slack does.
func (s *Server) Via(conn int) Sender { return Sender{s: s, conn: conn} }

// SlashCommand sends a slash command typed by user in channel and returns
// the envelope id. Its response_url is ResponseURL(envelope id) and its
// trigger_id can open a modal within the trigger TTL.
func (s *Server) SlashCommand(user, channel, command, text string) (string, error) {
	return s.Via(0).SlashCommand(user, channel, command, text)
}

// Click sends a block_actions click by user on the button actionID (in
// blockID, with value) of the message ts in channel.
func (s *Server) Click(user, channel, ts, blockID, actionID, value string) (string, error) {
	return s.Via(0).Click(user, channel, ts, blockID, actionID, value)
}

// SubmitView sends the view_submission of a modal by user; see
// Sender.SubmitView.
func (s *Server) SubmitView(user string, sub Submission) (string, error) {
	return s.Via(0).SubmitView(user, sub)
}

// ClickInView sends a block_actions click by user in a view the bot opened
// or published; see Sender.ClickInView.
func (s *Server) ClickInView(user, viewID, blockID, actionID, value string) (string, error) {
	return s.Via(0).ClickInView(user, viewID, blockID, actionID, value)
}

// SlashCommand sends a slash command; see Server.SlashCommand.
func (v Sender) SlashCommand(user, channel, command, text string) (string, error) {
	id := v.s.Socket.newEnvelopeID()
	e := &envelope{id: id, typ: "slash_commands", accepts: true, user: user, channel: channel, trigger: "trigger-" + id}
	return v.s.Socket.send(e, map[string]any{
		"token": "verification-token-unused", "team_id": TeamID, "team_domain": "fake",
		"channel_id": channel, "channel_name": "general", "user_id": user, "user_name": strings.ToLower(user),
		"command": command, "text": text, "api_app_id": AppID, "is_enterprise_install": "false",
		"trigger_id": e.trigger, "response_url": v.s.ResponseURL(id),
	}, v.conn)
}

// Click sends a click on a message's button; see Server.Click.
func (v Sender) Click(user, channel, ts, blockID, actionID, value string) (string, error) {
	id := v.s.Socket.newEnvelopeID()
	e := &envelope{id: id, typ: "interactive", user: user, channel: channel, messageTS: ts, trigger: "trigger-" + id}
	return v.s.Socket.send(e, map[string]any{
		"type": "block_actions", "team": team(), "user": userObject(user), "api_app_id": AppID,
		"token":      "verification-token-unused",
		"channel":    map[string]any{"id": channel},
		"container":  map[string]any{"type": "message", "message_ts": ts, "channel_id": channel, "is_ephemeral": false},
		"message":    map[string]any{"ts": ts, "type": "message"},
		"trigger_id": e.trigger, "response_url": v.s.ResponseURL(id),
		"actions": []map[string]any{{"type": "button", "action_id": actionID, "block_id": blockID, "value": value, "action_ts": v.s.newTS()}},
	}, v.conn)
}

// SubmitView sends the view_submission of a modal by user, as Slack does
// when they press its submit button: an interactive envelope that accepts a
// response payload (read it with WaitAck: response_action errors, clear,
// update or push), with no channel and no response_url.
//
// When sub.ViewID names a modal the bot opened for user, the submission
// carries that view as the fake holds it, and the state of every input
// block in it; Values must name existing inputs, and, as Slack's client
// does, the fake refuses to submit an empty required input, a text outside
// its min_length/max_length or a choice that is not among the options.
// Without ViewID, the view holds CallbackID, PrivateMetadata and Values
// alone.
func (v Sender) SubmitView(user string, sub Submission) (string, error) {
	view, err := v.s.views.submittedView(user, sub)
	if err != nil {
		return "", err
	}
	id := v.s.Socket.newEnvelopeID()
	e := &envelope{id: id, typ: "interactive", accepts: true, user: user, viewID: sub.ViewID, submission: true, trigger: "trigger-" + id}
	return v.s.Socket.send(e, map[string]any{
		"type": "view_submission", "team": team(), "user": userObject(user), "api_app_id": AppID,
		"token": "verification-token-unused", "trigger_id": e.trigger, "view": view,
		"response_urls": []any{}, "is_enterprise_install": false, "enterprise": nil,
	}, v.conn)
}

// ClickInView sends a block_actions click by user on the element actionID
// of block blockID in the view viewID (a Home tab the bot published for
// user, or a modal it opened for them): the container is the view; there
// is no channel, no message and no response_url. For a button, value ""
// sends the button's own value; for a static_select, value is the chosen
// option's value. The block and the element must exist in the view.
func (v Sender) ClickInView(user, viewID, blockID, actionID, value string) (string, error) {
	view, action, err := v.s.views.viewAction(user, viewID, blockID, actionID, value)
	if err != nil {
		return "", err
	}
	id := v.s.Socket.newEnvelopeID()
	action["action_ts"] = v.s.newTS()
	e := &envelope{id: id, typ: "interactive", user: user, trigger: "trigger-" + id}
	return v.s.Socket.send(e, map[string]any{
		"type": "block_actions", "team": team(), "user": userObject(user), "api_app_id": AppID,
		"token":      "verification-token-unused",
		"container":  map[string]any{"type": "view", "view_id": viewID},
		"trigger_id": e.trigger, "view": view, "actions": []any{action},
		"state": map[string]any{"values": map[string]any{}}, "is_enterprise_install": false, "enterprise": nil,
	}, v.conn)
}

// Redeliver re-sends the envelope id now on the Sender's connection (or on
// another connection than before, when one is open): same envelope_id and
// payload, retry_attempt one more, retry_reason "timeout".
func (v Sender) Redeliver(id string) error {
	v.s.mu.Lock()
	e := v.s.Socket.envs[id]
	v.s.mu.Unlock()
	if e == nil {
		return fmt.Errorf("slackfake: no envelope %s", id)
	}
	return v.s.Socket.deliver(e, v.conn, "timeout")
}

func team() map[string]any { return map[string]any{"id": TeamID, "domain": "fake"} }

func userObject(user string) map[string]any {
	name := strings.ToLower(user)
	return map[string]any{"id": user, "username": name, "name": name, "team_id": TeamID}
}
