package slackfake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// View is a modal or Home tab view the bot opened, updated or published.
type View struct {
	ID              string // V…
	Type            string // "modal" or "home"
	User            string // whose it is: the modal's user, the Home tab's owner
	Hash            string
	CallbackID      string
	PrivateMetadata string
	ExternalID      string
	Version         int  // 1 when opened or first published, one more per change
	Closed          bool // a modal closed by its submission's ack
	// JSON is the whole view as Slack holds it: the bot's fields with
	// Slack's (id, hash, state, app_id, …) added.
	JSON map[string]any
}

// storedView is a view the fake holds; mu guards it. Its body is
// replaced, never changed in place, so a copy of the map may be read
// without the lock.
type storedView struct {
	seq     int
	user    string
	body    map[string]any
	version int
	closed  bool
}

func (v *storedView) export() View {
	str := func(k string) string { s, _ := v.body[k].(string); return s }
	return View{
		ID: str("id"), Type: str("type"), User: v.user, Hash: str("hash"), CallbackID: str("callback_id"),
		PrivateMetadata: str("private_metadata"), ExternalID: str("external_id"),
		Version: v.version, Closed: v.closed, JSON: v.body,
	}
}

// viewStore serves views.*: the modals and Home tabs the bot opened,
// updated or published, the trigger_ids the fake handed out, and the
// submissions and clicks a test makes in a view; hub.mu guards it.
type viewStore struct {
	*hub
	byID     map[string]*storedView
	homes    map[string]string // user -> Home view id
	triggers map[string]*trigger
	ttl      time.Duration
	seq      int
}

func newViewStore(h *hub) *viewStore {
	return &viewStore{hub: h, byID: map[string]*storedView{}, homes: map[string]string{}, triggers: map[string]*trigger{}, ttl: DefaultTriggerTTL}
}

// trigger is a trigger_id the fake handed out in an envelope.
type trigger struct {
	user   string
	issued time.Time
	used   bool
}

// issueTrigger registers e's trigger_id at its first delivery; call it
// with mu held.
func (vs *viewStore) issueTrigger(e *envelope, now time.Time) {
	if e.trigger != "" && vs.triggers[e.trigger] == nil {
		vs.triggers[e.trigger] = &trigger{user: e.user, issued: now}
	}
}

// SetTriggerTTL sets how long a trigger_id can open a modal (Slack: 3 s).
func (s *Server) SetTriggerTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views.ttl = d
}

// useTrigger spends a trigger_id and returns its user, or Slack's error
// code; call it with mu held.
func (vs *viewStore) useTrigger(id string) (string, string) {
	t := vs.triggers[id]
	switch {
	case t == nil:
		return "", "invalid_trigger_id"
	case t.used:
		return "", "exchanged_trigger_id"
	case time.Since(t.issued) > vs.ttl:
		return "", "expired_trigger_id"
	}
	t.used = true
	return t.user, ""
}

// refuseView records and answers a view Slack would refuse.
func (vs *viewStore) refuseView(method string, problems []string) answer {
	vs.mu.Lock()
	vs.reject(method, "invalid_arguments", problems)
	vs.mu.Unlock()
	a := refusal("invalid_arguments", problems)
	delete(a, "errors")
	return a
}

// viewParam returns a deep copy of q's view, so that the fake may add to
// it without touching the recorded Call.
func viewParam(q *apiRequest) (map[string]any, bool) {
	v, ok := q.object("view")
	if !ok {
		return nil, false
	}
	raw, _ := json.Marshal(v)
	var c map[string]any
	return c, json.Unmarshal(raw, &c) == nil
}

func (vs *viewStore) open(q *apiRequest) answer {
	view, ok := viewParam(q)
	if !ok || q.get("trigger_id") == "" {
		return fail("invalid_arguments")
	}
	if problems := checkView(view, "modal"); len(problems) > 0 {
		return vs.refuseView(q.method, problems)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if ext, _ := view["external_id"].(string); ext != "" && vs.byExternalID(ext) != nil {
		return fail("duplicate_external_id")
	}
	user, code := vs.useTrigger(q.get("trigger_id"))
	if code != "" {
		return fail(code)
	}
	v := vs.newView(user, view)
	return answer{"ok": true, "view": v.body}
}

func (vs *viewStore) update(q *apiRequest) answer {
	view, ok := viewParam(q)
	if !ok || q.get("view_id") == "" && q.get("external_id") == "" {
		return fail("invalid_arguments")
	}
	if problems := checkView(view, ""); len(problems) > 0 {
		return vs.refuseView(q.method, problems)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v := vs.byID[q.get("view_id")]
	if q.get("view_id") == "" {
		v = vs.byExternalID(q.get("external_id"))
	}
	switch {
	case v == nil || v.closed:
		return fail("not_found")
	case q.get("hash") != "" && q.get("hash") != v.body["hash"]:
		return fail("hash_conflict")
	}
	vs.replaceView(v, view)
	return answer{"ok": true, "view": v.body}
}

func (vs *viewStore) publish(q *apiRequest) answer {
	view, ok := viewParam(q)
	user := q.get("user_id")
	if !ok || user == "" {
		return fail("invalid_arguments")
	}
	if problems := checkView(view, "home"); len(problems) > 0 {
		return vs.refuseView(q.method, problems)
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v := vs.byID[vs.homes[user]]
	if v == nil {
		v = vs.newView(user, view)
		vs.homes[user] = v.body["id"].(string)
		return answer{"ok": true, "view": v.body}
	}
	if q.get("hash") != "" && q.get("hash") != v.body["hash"] {
		return fail("hash_conflict")
	}
	vs.replaceView(v, view)
	return answer{"ok": true, "view": v.body}
}

// newView stores view as a new view of user; call it with mu held.
func (vs *viewStore) newView(user string, view map[string]any) *storedView {
	vs.seq++
	id := fmt.Sprintf("V0FAKE%04d", vs.seq)
	v := &storedView{seq: vs.seq, user: user}
	vs.byID[id] = v
	view["id"], view["root_view_id"], view["previous_view_id"] = id, id, nil
	vs.replaceView(v, view)
	return v
}

// replaceView makes view (the bot's fields) the content of v, keeping its
// id; call it with mu held.
func (vs *viewStore) replaceView(v *storedView, view map[string]any) {
	body := map[string]any{
		"team_id": TeamID, "state": map[string]any{"values": map[string]any{}},
		"private_metadata": "", "callback_id": "", "external_id": "", "clear_on_close": false, "notify_on_close": false,
		"app_id": AppID, "bot_id": BotID, "app_installed_team_id": TeamID,
		"hash": fmt.Sprintf("%d.%s", time.Now().Unix(), randomID()),
	}
	if v.body != nil {
		for _, k := range []string{"id", "root_view_id", "previous_view_id"} {
			body[k] = v.body[k]
		}
	}
	for k, val := range view {
		if k != "hash" && k != "state" {
			body[k] = val
		}
	}
	body["blocks"] = withIDs(body["blocks"])
	v.body = body
	v.version++
	vs.changed()
}

// byExternalID returns the open view with the external_id, or nil; call it
// with mu held.
func (vs *viewStore) byExternalID(ext string) *storedView {
	if ext == "" {
		return nil
	}
	for _, v := range vs.byID {
		if v.body["external_id"] == ext && !v.closed {
			return v
		}
	}
	return nil
}

// View returns the view id as it now is.
func (s *Server) View(id string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.views.byID[id]; v != nil {
		return v.export(), true
	}
	return View{}, false
}

// Views returns every view the bot opened, pushed or published, oldest
// first, as each now is.
func (s *Server) Views() []View {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := slices.Collect(maps.Values(s.views.byID))
	slices.SortFunc(vs, func(a, b *storedView) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]View, len(vs))
	for i, v := range vs {
		out[i] = v.export()
	}
	return out
}

// Home returns the Home tab view last published for user.
func (s *Server) Home(user string) (View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.views.byID[s.views.homes[user]]; v != nil {
		return v.export(), true
	}
	return View{}, false
}

// WaitHome waits until user's Home tab has been published (or changed) to
// at least version (1 for the first publish) and returns it.
func (s *Server) WaitHome(user string, version int, timeout time.Duration) (View, error) {
	err := s.waitFor(timeout, func() bool {
		v := s.views.byID[s.views.homes[user]]
		return v != nil && v.version >= version
	}, fmt.Sprintf("version %d of %s's Home tab", version, user))
	v, _ := s.Home(user)
	return v, err
}

// WaitModal waits until user has an open modal and returns the newest.
func (s *Server) WaitModal(user string, timeout time.Duration) (View, error) {
	var found View
	err := s.waitFor(timeout, func() bool {
		best := -1
		for _, v := range s.views.byID {
			if v.user == user && v.body["type"] == "modal" && !v.closed && v.seq > best {
				best, found = v.seq, v.export()
			}
		}
		return best >= 0
	}, "a modal for "+user)
	return found, err
}

// CloseView closes the modal id as its user's Close button does; the bot
// is told nothing (mailbot's modals do not ask for view_closed).
func (s *Server) CloseView(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.views.byID[id]
	if v == nil || v.closed {
		return false
	}
	v.closed = true
	s.changed()
	return true
}
