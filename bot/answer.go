package bot

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/slack-go/slack"
)

// postAnswer is what post reads of chat.postMessage's answer.
type postAnswer struct {
	Channel string `json:"channel"`
	TS      string `json:"ts"`
	slack.SlackResponse
}

// answerBufs holds the buffers answers are read into.
var answerBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer bounds the buffers kept in answerBufs.
const maxPooledAnswer = 64 << 10

// readPostAnswer reads chat.postMessage's answer from body (at most
// maxPostAnswer bytes) as json.Decoder reads its first value into a
// postAnswer, and returns its channel and ts, and its error (a read or
// decoding error, or Slack's). A plain success (ok true, the channel and
// ts plain strings) is read without decoding the message Slack echoes;
// anything else is decoded by encoding/json, as before.
func readPostAnswer(body io.Reader) (channel, ts string, err error) {
	buf := answerBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			buf.Reset()
			answerBufs.Put(buf)
		}
	}()
	_, readErr := buf.ReadFrom(io.LimitReader(body, maxPostAnswer))
	if ch, t, ok := quickAnswer(buf.Bytes()); ok {
		return ch, t, nil
	}
	var a postAnswer
	if err := json.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(&a); err != nil {
		if readErr != nil {
			return "", "", readErr
		}
		return "", "", err
	}
	return a.Channel, a.TS, a.Err()
}

// quickAnswer reads a plain success: a valid JSON object, alone, whose
// "ok" is true and whose "channel" and "ts" are strings without escapes.
// Other keys are skipped unless they name a field of postAnswer
// (encoding/json matches names in any case): then, and for any key with
// an escape or a byte not ASCII, ok is false, for encoding/json to read
// the answer, unless the key is one of SlackResponse's other fields and
// its value decodes into that field alone.
func quickAnswer(b []byte) (channel, ts string, ok bool) {
	if !json.Valid(b) {
		return "", "", false
	}
	sawOK := false
	plain := eachMember(b, skipSpace(b, 0), func(key, v []byte) bool {
		var isString bool
		switch string(key) {
		case "ok":
			sawOK = string(v) == "true"
			return sawOK
		case "channel":
			channel, isString = plainString(v)
			return isString
		case "ts":
			ts, isString = plainString(v)
			return isString
		}
		return otherKey(key, v)
	})
	return channel, ts, plain && sawOK
}

// eachMember calls fn with each key (without its quotes) and value of the
// object at b[i] until fn returns false, and reports whether every call
// returned true; false when b[i] opens no object.
func eachMember(b []byte, i int, fn func(key, v []byte) bool) bool {
	if b[i] != '{' {
		return false
	}
	for i = skipSpace(b, i+1); b[i] != '}'; i = skipSpace(b, i) {
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		end := stringEnd(b, i)
		key := b[i+1 : end-1]
		i = skipSpace(b, skipSpace(b, end)+1) // past the colon
		vend := skipValue(b, i)
		if !fn(key, b[i:vend]) {
			return false
		}
		i = vend
	}
	return true
}

// otherKey reports whether a key other than ok, channel and ts, with its
// value v, leaves postAnswer's decoding as quickAnswer reads it: a key of
// ASCII without escapes that names no field, or one of SlackResponse's
// other fields, exactly, whose value decodes into it.
func otherKey(key, v []byte) bool {
	if !ascii(key) {
		return false
	}
	var field any
	switch k := string(key); {
	case k == "error" || k == "warning" || k == "needed" || k == "provided":
		return v[0] == '"' || string(v) == "null" // any string decodes into a string
	case k == "errors":
		field = new([]slack.SlackResponseErrors)
	case k == "response_metadata":
		return string(v) == "null" || eachMember(v, 0, metadataMember)
	default:
		return !foldsTo(k, "ok", "channel", "ts", "error", "warning", "errors", "response_metadata", "needed", "provided")
	}
	return json.Unmarshal(v, field) == nil
}

// metadataMember reports whether a member of response_metadata decodes
// into slack.ResponseMetadata without an error: next_cursor a string,
// messages and warnings arrays of strings (any of them may be null), any
// other key of ASCII without escapes that names none of them.
func metadataMember(key, v []byte) bool {
	switch k := string(key); k {
	case "next_cursor":
		return v[0] == '"' || v[0] == 'n'
	case "messages", "warnings":
		return v[0] == 'n' || v[0] == '[' && stringsOnly(v)
	default:
		return ascii(key) && !foldsTo(k, "next_cursor", "messages", "warnings")
	}
}

// stringsOnly reports whether the array v holds only strings and nulls.
func stringsOnly(v []byte) bool {
	for i := skipSpace(v, 1); v[i] != ']'; i = skipSpace(v, i) {
		if v[i] == ',' {
			i = skipSpace(v, i+1)
		}
		if v[i] != '"' && v[i] != 'n' {
			return false
		}
		i = skipValue(v, i)
	}
	return true
}

// foldsTo reports whether k equals one of names in any case.
func foldsTo(k string, names ...string) bool {
	for _, name := range names {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// ascii reports whether key has no escape and no byte beyond ASCII.
func ascii(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// plainString is the JSON string v without its quotes, and whether it is
// a string without escapes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
		return "", false // encoding/json turns invalid UTF-8 into U+FFFD
	}
	return string(v[1 : len(v)-1]), true
}

// The helpers below walk JSON that json.Valid accepted.

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b) && b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue is the index just past the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		return containerEnd(b, i)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++ // a number or a literal
	}
	return i
}

// containerEnd is the index just past the object or array that opens at
// b[i].
func containerEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}
