package slackfake

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"unicode/utf8"
)

// Submission is what a user submits in a modal.
type Submission struct {
	// ViewID is the modal, as the bot opened it; see Sender.SubmitView.
	ViewID string
	// CallbackID and PrivateMetadata make up the view when ViewID is empty.
	CallbackID      string
	PrivateMetadata string
	// Values are the inputs the user filled in or changed; an input of the
	// view left out keeps its initial value.
	Values []Value
}

// Value is the state of one input of a submitted view.
type Value struct {
	BlockID  string
	ActionID string
	Type     string // the element's type; "" takes it from the view (plain_text_input without one)
	Value    string // the text typed, or the value of the option chosen; "" for none
	Files    []File // the files of a file_input
}

// Text is the text typed in a plain_text_input.
func Text(blockID, actionID, value string) Value {
	return Value{BlockID: blockID, ActionID: actionID, Type: "plain_text_input", Value: value}
}

// Choice is the option chosen in a static_select, by its value.
func Choice(blockID, actionID, value string) Value {
	return Value{BlockID: blockID, ActionID: actionID, Type: "static_select", Value: value}
}

// Person is the user chosen in a users_select, by their ID.
func Person(blockID, actionID, userID string) Value {
	return Value{BlockID: blockID, ActionID: actionID, Type: "users_select", Value: userID}
}

// submittedView returns the view of a view_submission by user.
func (vs *viewStore) submittedView(user string, sub Submission) (map[string]any, error) {
	if sub.ViewID == "" {
		state, err := stateOf(nil, sub.Values)
		return map[string]any{
			"id": "V0UNKNOWN", "team_id": TeamID, "type": "modal", "blocks": []any{},
			"title":       map[string]any{"type": "plain_text", "text": "Form"},
			"callback_id": sub.CallbackID, "private_metadata": sub.PrivateMetadata, "external_id": "",
			"state": state, "hash": "", "root_view_id": "V0UNKNOWN", "previous_view_id": nil,
			"app_id": AppID, "bot_id": BotID, "clear_on_close": false, "notify_on_close": false,
		}, err
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v := vs.byID[sub.ViewID]
	switch {
	case v == nil:
		return nil, fmt.Errorf("slackfake: no view %s", sub.ViewID)
	case v.body["type"] != "modal":
		return nil, fmt.Errorf("slackfake: view %s is not a modal", sub.ViewID)
	case v.user != user:
		return nil, fmt.Errorf("slackfake: view %s is %s's, not %s's", sub.ViewID, v.user, user)
	case v.closed:
		return nil, fmt.Errorf("slackfake: view %s is closed", sub.ViewID)
	}
	state, err := stateOf(v.body["blocks"], sub.Values)
	if err != nil {
		return nil, err
	}
	view := maps.Clone(v.body)
	view["state"] = state
	return view, nil
}

// stateOf returns the state.values of a view with blocks (nil: unknown)
// as submitted with vals.
func stateOf(blocks any, vals []Value) (map[string]any, error) {
	if blocks == nil {
		return givenState(vals), nil
	}
	values := map[string]any{}
	used := make([]bool, len(vals))
	list, _ := blocks.([]any)
	for _, b := range list {
		bm, _ := b.(map[string]any)
		el, _ := bm["element"].(map[string]any)
		if bm["type"] != "input" || el == nil {
			continue
		}
		bid, _ := bm["block_id"].(string)
		aid, _ := el["action_id"].(string)
		given := -1
		for i, v := range vals {
			if v.BlockID == bid && v.ActionID == aid {
				given, used[i] = i, true
			}
		}
		st, err := inputState(el, bm["optional"] == true, vals, given)
		if err != nil {
			return nil, fmt.Errorf("slackfake: input %s/%s: %w", bid, aid, err)
		}
		addState(values, bid, aid, st)
	}
	for i, v := range vals {
		if !used[i] {
			return nil, fmt.Errorf("slackfake: the view has no input %s/%s", v.BlockID, v.ActionID)
		}
	}
	return map[string]any{"values": values}, nil
}

func addState(values map[string]any, blockID, actionID string, st map[string]any) {
	if values[blockID] == nil {
		values[blockID] = map[string]any{}
	}
	values[blockID].(map[string]any)[actionID] = st
}

// givenState is the state of vals alone, for a view the fake does not know:
// each value as its type (a text input by default) submits it.
func givenState(vals []Value) map[string]any {
	values := map[string]any{}
	for _, v := range vals {
		typ := cmp.Or(v.Type, "plain_text_input")
		st := map[string]any{"type": typ, "value": orNil(v.Value)}
		switch typ {
		case "static_select":
			st = map[string]any{"type": typ, "selected_option": option(v.Value, v.Value)}
		case "file_input":
			st = fileState(v.Files)
		}
		addState(values, v.BlockID, v.ActionID, st)
	}
	return map[string]any{"values": values}
}

// inputState returns the state of the input element el, filled in with
// vals[given] (or left at its initial value when given is -1), or why
// Slack's client would not submit it.
func inputState(el map[string]any, optional bool, vals []Value, given int) (map[string]any, error) {
	typ, _ := el["type"].(string)
	if typ == "file_input" {
		return fileInputState(el, optional, vals, given)
	}
	var v string
	if given >= 0 {
		if t := vals[given].Type; t != "" && t != typ {
			return nil, fmt.Errorf("is a %s, not a %s", typ, t)
		}
		v = vals[given].Value
	} else if io, ok := el["initial_option"].(map[string]any); ok {
		v, _ = io["value"].(string)
	} else {
		v, _ = el["initial_value"].(string)
	}
	if v == "" && !optional {
		return nil, fmt.Errorf("is required: Slack's client would not submit the form")
	}
	switch typ {
	case "users_select":
		return map[string]any{"type": typ, "selected_user": orNil(v)}, nil
	case "static_select":
		return selectState(el, v)
	}
	n := utf8.RuneCountInString(v)
	if maxLen, ok := el["max_length"].(float64); ok && n > int(maxLen) {
		return nil, fmt.Errorf("holds %d characters, more than its max_length %v", n, maxLen)
	}
	if minLen, ok := el["min_length"].(float64); ok && v != "" && n < int(minLen) {
		return nil, fmt.Errorf("holds %d characters, fewer than its min_length %v", n, minLen)
	}
	return map[string]any{"type": typ, "value": orNil(v)}, nil
}

func objects(list []any) []map[string]any {
	var out []map[string]any
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func option(text, value string) map[string]any {
	if value == "" {
		return nil
	}
	return map[string]any{"text": map[string]any{"type": "plain_text", "text": text, "emoji": true}, "value": value}
}

func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// viewAction returns the view and the action of a click by user on
// blockID/actionID in the view viewID.
func (vs *viewStore) viewAction(user, viewID, blockID, actionID, value string) (map[string]any, map[string]any, error) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	v := vs.byID[viewID]
	switch {
	case v == nil:
		return nil, nil, fmt.Errorf("slackfake: no view %s", viewID)
	case v.user != user:
		return nil, nil, fmt.Errorf("slackfake: view %s is %s's; %s cannot see it", viewID, v.user, user)
	case v.closed:
		return nil, nil, fmt.Errorf("slackfake: view %s is closed", viewID)
	}
	el := findElement(v.body["blocks"], blockID, actionID)
	if el == nil {
		return nil, nil, fmt.Errorf("slackfake: view %s has no element %s/%s", viewID, blockID, actionID)
	}
	typ, _ := el["type"].(string)
	action := map[string]any{"type": typ, "block_id": blockID, "action_id": actionID}
	switch typ {
	case "button":
		action["text"] = el["text"]
		if v := cmp.Or(value, str(el["value"])); v != "" {
			action["value"] = v
		}
	case "static_select", "overflow":
		opts, _ := el["options"].([]any)
		o := findOption(objects(opts), value)
		if o == nil {
			return nil, nil, fmt.Errorf("slackfake: %s/%s has no option %q", blockID, actionID, value)
		}
		action["selected_option"] = map[string]any{"text": o["text"], "value": value}
	default:
		action["value"] = value
	}
	view := maps.Clone(v.body)
	view["state"] = map[string]any{"values": map[string]any{}}
	return view, action, nil
}

func str(v any) string { s, _ := v.(string); return s }

// findElement returns the element actionID of block blockID in blocks.
func findElement(blocks any, blockID, actionID string) map[string]any {
	for _, b := range objects(asList(blocks)) {
		if b["block_id"] != blockID {
			continue
		}
		for _, e := range append(objects(asList(b["elements"])), objects([]any{b["accessory"], b["element"]})...) {
			if e["action_id"] == actionID {
				return e
			}
		}
	}
	return nil
}

func asList(v any) []any { l, _ := v.([]any); return l }

// checkAck checks the payload of an ack as Slack would read it, and
// applies a view submission's response_action; call it with mu held.
func (vs *viewStore) checkAck(e *envelope, payload json.RawMessage) {
	var p map[string]any
	_ = json.Unmarshal(payload, &p)
	switch {
	case e.typ == "slash_commands" && p != nil:
		text, _ := p["text"].(string)
		if code, problems := checkMessage(text, p["blocks"]); code != "" {
			vs.reject("ack", code, problems)
		}
	case e.submission:
		vs.submissionAck(e, p)
	}
}

// submissionAck applies the ack of a view_submission: the view closes,
// shows errors, is updated or has a view pushed on it.
func (vs *viewStore) submissionAck(e *envelope, p map[string]any) {
	v := vs.byID[e.viewID]
	action, _ := p["response_action"].(string)
	var problems []string
	switch action {
	case "":
		if v != nil {
			v.closed = true
		}
	case "clear":
		for _, o := range vs.byID {
			if o.user == e.user && o.body["type"] == "modal" {
				o.closed = true
			}
		}
	case "errors":
		problems = errorsProblems(v, p["errors"])
	case "update", "push":
		view, _ := p["view"].(map[string]any)
		if problems = checkView(view, "modal"); len(problems) == 0 {
			if action == "push" || v == nil {
				vs.newView(e.user, view)
			} else {
				vs.replaceView(v, view)
			}
		}
	default:
		problems = []string{fmt.Sprintf("/response_action: unknown %q", action)}
	}
	if len(problems) > 0 {
		vs.reject("ack", "invalid_arguments", problems)
	}
	vs.changed()
}

// errorsProblems checks the errors of response_action errors: keys must be
// block_ids of input blocks of the view, or Slack shows a generic error.
func errorsProblems(v *storedView, errs any) []string {
	m, ok := errs.(map[string]any)
	if !ok || len(m) == 0 {
		return []string{"/errors: must be an object with at least one key"}
	}
	if v == nil {
		return nil
	}
	var problems []string
	for k := range m {
		found := false
		for _, b := range objects(asList(v.body["blocks"])) {
			found = found || b["type"] == "input" && b["block_id"] == k
		}
		if !found {
			problems = append(problems, fmt.Sprintf("/errors/%s: not the block_id of an input block of the view", k))
		}
	}
	return problems
}

// selectState is the state of a static select submitted with the option
// of value v (none when v is empty); an error when it has no such option.
func selectState(el map[string]any, v string) (map[string]any, error) {
	if v == "" {
		return map[string]any{"type": "static_select", "selected_option": nil}, nil
	}
	opts, _ := el["options"].([]any)
	o := findOption(objects(opts), v)
	if o == nil {
		return nil, fmt.Errorf("has no option %q", v)
	}
	return map[string]any{"type": "static_select", "selected_option": map[string]any{"text": o["text"], "value": v}}, nil
}
