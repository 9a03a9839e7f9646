package slackfake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Visible is what Slack would show, split by audience: every string the
// bot sent, JSON flattened and Slack's &amp; &lt; &gt; decoded.
type Visible struct {
	// Public is what everyone in a channel sees: chat.postMessage and
	// chat.update outside direct messages, in_channel response_url posts
	// and those replacing a clicked message, thread replies, and the
	// messages the fake holds.
	Public []string
	// Private is what one person sees: acks, ephemeral posts, direct
	// messages, modals and Home tabs; and the arguments of other calls.
	Private []string
	// To holds the private texts by the user who alone sees them.
	To map[string][]string
}

// All returns both audiences' texts.
func (v Visible) All() []string { return append(append([]string(nil), v.Public...), v.Private...) }

// Of returns what user can see: the public texts and those shown to user
// alone.
func (v Visible) Of(user string) []string {
	return append(append([]string(nil), v.Public...), v.To[user]...)
}

func (v *Visible) private(user string, texts []string) {
	v.Private = append(v.Private, texts...)
	if user != "" {
		v.To[user] = append(v.To[user], texts...)
	}
}

// Texts returns everything the bot sent to Slack, by audience.
func (s *Server) Texts() Visible {
	v := Visible{To: map[string][]string{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		s.callTexts(&v, c)
	}
	for _, p := range s.sink.posts {
		switch {
		case p.Status != http.StatusOK:
		case p.Public:
			v.Public = append(v.Public, Flatten(p.Raw)...)
		default:
			v.private(s.envUser(strings.TrimPrefix(p.Path, "/response/")), Flatten(p.Raw))
		}
	}
	for _, a := range s.Socket.acks {
		v.private(s.envUser(a.EnvelopeID), Flatten(string(a.Payload)))
	}
	for ch, msgs := range s.chat.messages {
		for _, m := range msgs {
			raw, _ := json.Marshal(s.chat.wire(m))
			s.channelTexts(&v, ch, Flatten(string(raw)))
		}
	}
	for _, view := range s.views.byID {
		raw, _ := json.Marshal(view.body)
		v.private(view.user, Flatten(string(raw)))
	}
	return v
}

// callTexts files the texts of a Web API call by audience; call it with
// s.mu held.
func (s *Server) callTexts(v *Visible, c Call) {
	var texts []string
	for _, vals := range c.Form {
		for _, val := range vals {
			texts = append(texts, Flatten(val)...)
		}
	}
	if c.Body != "" {
		texts = append(texts, Flatten(c.Body)...)
	}
	switch c.Method {
	case "chat.postMessage", "chat.update":
		s.channelTexts(v, callParam(c, "channel"), texts)
	case "chat.postEphemeral":
		v.private(callParam(c, "user"), texts)
	case "views.publish":
		v.private(callParam(c, "user_id"), texts)
	case "views.open":
		user := ""
		if t := s.views.triggers[callParam(c, "trigger_id")]; t != nil {
			user = t.user
		}
		v.private(user, texts)
	case "views.update":
		view := s.views.byID[callParam(c, "view_id")]
		if ext := callParam(c, "external_id"); view == nil && ext != "" {
			view = s.views.byExternalID(ext)
		}
		user := ""
		if view != nil {
			user = view.user
		}
		v.private(user, texts)
	default:
		v.private("", texts)
	}
}

// channelTexts files texts sent to a channel: a direct message is its
// user's alone; call it with s.mu held.
func (s *Server) channelTexts(v *Visible, channel string, texts []string) {
	if user, ok := s.chat.dms[channel]; ok {
		v.private(user, texts)
		return
	}
	v.Public = append(v.Public, texts...)
}

// envUser is the user who acted in the envelope id; call it with s.mu
// held.
func (s *Server) envUser(id string) string {
	if e := s.Socket.envs[id]; e != nil {
		return e.user
	}
	return ""
}

// callParam returns a parameter of a call, from its form or JSON body.
func callParam(c Call, name string) string {
	if c.JSON != nil {
		s, _ := c.JSON[name].(string)
		return s
	}
	return c.Form.Get(name)
}

var slackUnescape = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// Flatten returns the strings in s: s itself, and when s is JSON, every
// string inside it; each with Slack's escaping decoded.
func Flatten(s string) []string {
	out := []string{slackUnescape.Replace(s)}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return out
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, slackUnescape.Replace(v))
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
