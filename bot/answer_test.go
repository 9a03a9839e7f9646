package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// decodedAnswer is what post read of an answer before readPostAnswer:
// json.Decoder's first value into a postAnswer. It is the oracle.
func decodedAnswer(body []byte) (string, string, error) {
	var a postAnswer
	if err := json.NewDecoder(io.LimitReader(bytes.NewReader(body), maxPostAnswer)).Decode(&a); err != nil {
		return "", "", err
	}
	return a.Channel, a.TS, a.Err()
}

// sameAnswer fails t when readPostAnswer reads body otherwise than
// json.Decoder did.
func sameAnswer(t *testing.T, body []byte) {
	t.Helper()
	ch, ts, err := readPostAnswer(bytes.NewReader(body))
	wch, wts, werr := decodedAnswer(body)
	if ch != wch || ts != wts || fmt.Sprint(err) != fmt.Sprint(werr) {
		t.Fatalf("answer %q:\n got %q %q %v\nwant %q %q %v", body, ch, ts, err, wch, wts, werr)
	}
}

// slackAnswer is chat.postMessage's answer as Slack documents it, with a
// warning about the charset, as Slack adds for a form without one.
const slackAnswer = `{"ok":true,"channel":"C123ABC456","ts":"1503435956.000247","message":{"text":"Here's a message for you","username":"ecto1","bot_id":"B123ABC456","attachments":[{"text":"This is an attachment","id":1,"fallback":"This is an attachment's fallback"}],"blocks":[{"type":"section","text":{"type":"mrkdwn","text":"a \"quoted\" \\ \u003c@U1\u003e","verbatim":true}}],"type":"message","subtype":"bot_message","ts":"1503435956.000247"},"warning":"missing_charset","response_metadata":{"warnings":["missing_charset"]}}`

// TestPostAnswerAsDecoded: the answer of chat.postMessage reads as
// json.Decoder read it into the answer's struct, for Slack's answers,
// failures and edge cases of JSON, though it is read to its end first.
func TestPostAnswerAsDecoded(t *testing.T) {
	for _, body := range []string{
		slackAnswer,
		` {"ok":true,"channel":"C1","ts":"1.2"} `,
		`{"ok":true,"channel":"C1","ts":"1.2"}{"ok":false}`,
		`{"ok":false,"error":"channel_not_found","response_metadata":{"messages":["[ERROR] no"]}}`,
		`{"ok":false,"error":"  "}`, `{"ok":false}`, `{"channel":"C1","ts":"1"}`, `{}`, `[]`, `null`, ``, `{`, `{"ok":true`,
		`{"ok":true,"ok":false,"channel":"C1","ts":"1"}`, `{"ok":false,"ok":true,"channel":"C1","ts":"1"}`,
		`{"ok":true,"OK":false,"channel":"C1","ts":"1"}`, `{"ok":true,"Channel":"C2","channel":"C1","ts":"1"}`,
		`{"ok":true,"channel":"C1","channel":"C2","ts":"1"}`, `{"ok":true,"channel":"C\u0031","ts":"1"}`,
		`{"ok":true,"channel":"C1\xff","ts":"1"}`, `{"ok":true,"channel":null,"ts":"1"}`, `{"ok":true,"channel":5,"ts":"1"}`,
		`{"ok":true,"\u0063hannel":"C2","channel":"C1","ts":"1"}`, "{\"ok\":true,\"\u212aey\":1,\"o\u212a\":false}",
		`{"ok":true,"channel":"C1","ts":"1","error":5}`, `{"ok":true,"channel":"C1","ts":"1","response_metadata":{"warnings":[1]}}`,
		`{"ok":true,"channel":"C1","ts":"1","errors":[{"code":"x"}],"needed":"chat:write","provided":"x"}`,
		`{"ok":true,"channel":"C1","ts":"1","warning":["x"]}`, `{"ok":1,"channel":"C1","ts":"1"}`,
		`{"ok" : true , "channel" : "C1" , "ts" : "1" , "n" : -1.5e3 , "a" : [ true , null , { } ] }`,
	} {
		sameAnswer(t, []byte(body))
	}
}

// FuzzPostAnswer compares readPostAnswer with json.Decoder for arbitrary
// answers.
func FuzzPostAnswer(f *testing.F) {
	f.Add([]byte(slackAnswer))
	f.Add([]byte(`{"ok":true,"channel":"C1","ts":"1","x":{"y":[1,"\"]}"]}}`))
	f.Add([]byte(`{"ok":false,"error":"ratelimited"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAnswer(t, body)
	})
}
