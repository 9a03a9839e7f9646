package pdd

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// twoPassDecode is the decoder of answers as it was before one pass read
// the envelope with the result: the envelope decoded strictly by a
// json.Decoder (strictEnvelope), then the whole body again into v. FuzzDecodeOnePass
// holds decode to it.
func (a *Adapter) twoPassDecode(c *apiclient.Caller, op apiclient.Op, res *apiclient.Response, v any) error {
	if err := a.notOK(c, op, res); err != nil {
		return err
	}
	env, reason := strictEnvelope(res.Body)
	if reason != "" {
		return a.garbledAnswer(op, reason)
	}
	if err := a.envelopeError(c, op, res, env); err != nil {
		return err
	}
	if err := json.Unmarshal(res.Body, v); err != nil {
		return a.garbledAnswer(op, reasonNotPDD)
	}
	return nil
}

// FuzzDecodeOnePass checks that decoding an answer in one pass gives what
// the two passes gave, for every answer type: the same error (class,
// code, reason, words) or the same result.
func FuzzDecodeOnePass(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzDecodeOnePass.
	a := fuzzAdapter()
	c := a.c.WithSecrets(fuzzSecrets...)
	answers := []func() any{
		func() any { return new(domainAnswer) }, func() any { return new(mailboxAnswer) }, func() any { return new(listAnswer) },
	}
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		res := &apiclient.Response{Status: status, Body: body, Header: http.Header{}}
		for _, op := range []apiclient.Op{apiclient.OpRegister, apiclient.OpAdd, apiclient.OpReset, apiclient.OpList} {
			for _, newAnswer := range answers {
				got, want := newAnswer(), newAnswer()
				gotErr, wantErr := settled(a.decode(c, op, res, got)), settled(a.twoPassDecode(c, op, res, want))
				var ge, we *apiclient.Error
				switch {
				case (gotErr == nil) != (wantErr == nil):
					t.Fatalf("%s %d %q into %T: one pass %v, two passes %v", op, status, body, got, gotErr, wantErr)
				case gotErr == nil && !reflect.DeepEqual(got, want):
					t.Fatalf("%s %d %q: one pass read %+v, two passes %+v", op, status, body, got, want)
				case gotErr == nil:
				case !errors.As(gotErr, &ge) || !errors.As(wantErr, &we) || !reflect.DeepEqual(*ge, *we):
					t.Fatalf("%s %d %q into %T: one pass %#v, two passes %#v", op, status, body, got, gotErr, wantErr)
				}
			}
		}
	})
}

// TestDecodeAllocs bounds the allocations of decoding a register's
// answer with its secrets: the answer's strings, the secrets' struct,
// and the decoder's own state (24 with two passes, 14 in one).
func TestDecodeAllocs(t *testing.T) {
	body := []byte(`{"domain":"example.com","status":"domain-activate","stage":"owner-check","secrets":{"name":"0123456789ab","content":"ba9876543210"},"success":"ok"}`)
	a := fuzzAdapter()
	res := &apiclient.Response{Status: 200, Body: body}
	n := testing.AllocsPerRun(100, func() {
		var d domainAnswer
		if err := a.decode(a.c, apiclient.OpRegister, res, &d); err != nil {
			t.Fatal(err)
		}
	})
	if n > 14 {
		t.Errorf("decode allocates %.0f times, want at most 14", n)
	}
}
