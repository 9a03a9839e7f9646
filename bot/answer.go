package bot

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

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
// maxPostAnswer bytes, to its end, so that the connection can carry the
// next request) and decodes its first value into a postAnswer, as
// json.Decoder does: it returns the channel and ts, and the error (a read
// or decoding error, or Slack's). encoding/json still walks the message
// Slack echoes (about 7 us of a notice's CPU, 0.7% of a command's): a
// reader of our own that skipped it was tried and left out, a JSON parser
// beside encoding/json for too little.
func readPostAnswer(body io.Reader) (channel, ts string, err error) {
	buf := answerBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			buf.Reset()
			answerBufs.Put(buf)
		}
	}()
	_, readErr := buf.ReadFrom(io.LimitReader(body, maxPostAnswer))
	var a postAnswer
	if err := json.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(&a); err != nil {
		if readErr != nil {
			return "", "", readErr
		}
		return "", "", err
	}
	return a.Channel, a.TS, a.Err()
}
