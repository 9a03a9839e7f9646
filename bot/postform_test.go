package bot

import (
	"math/rand/v2"
	"net/url"
	"testing"
)

// TestPostFormIsURLValues: the form of a chat.postMessage is, byte for
// byte, url.Values' encoding of the same fields, for random nasty texts
// and every byte.
func TestPostFormIsURLValues(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	for i := range 300 {
		token, channel, text, blocks := nastyText(rng, 5), nastyText(rng, 5), nastyText(rng, 60), nastyText(rng, 200)
		if i == 0 {
			text, blocks = string(every), string(every)
		}
		samePostForm(t, token, channel, text, blocks)
	}
}

// samePostForm fails t when postForm differs from url.Values.Encode.
func samePostForm(t *testing.T, token, channel, text, blocks string) {
	t.Helper()
	want := url.Values{"token": {token}, "channel": {channel}, "text": {text}, "blocks": {blocks}}.Encode()
	if got := postForm(token, channel, text, []byte(blocks)); string(got) != want {
		t.Fatalf("postForm:\n got %q\nwant %q", got, want)
	}
}

// FuzzPostForm compares postForm with url.Values.Encode for arbitrary
// texts.
func FuzzPostForm(f *testing.F) {
	f.Add("xoxb-1", "COPS", "a b+c&d=e%f", `[{"type":"section"}]`)
	f.Add("", "", "\x00\xff é 😀 ~-_.", "\u2028")
	f.Fuzz(func(t *testing.T, token, channel, text, blocks string) {
		samePostForm(t, token, channel, text, blocks)
	})
}
