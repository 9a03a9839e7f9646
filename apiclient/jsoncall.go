package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// JSONCall is one call of a JSON API: its body and its answer are JSON.
type JSONCall struct {
	Op     Op
	Method string
	Path   string
	Query  url.Values
	In     any // the JSON body, nil for none
	Out    any // where a 2xx answer is decoded, nil to ignore it
	// Create: the call creates something (a 5xx may mean it did, and an
	// uncertain attempt is not sent again).
	Create bool
	// Secret is a password the body carries, kept out of errors like the
	// credentials (Caller.WithSecrets).
	Secret string
}

// JSONRequest is the Request of j, its body In encoded as JSON (none
// when In is nil).
func (c *Caller) JSONRequest(j JSONCall) (Request, error) {
	req := Request{Op: j.Op, Method: j.Method, Path: j.Path, Query: j.Query}
	if j.In != nil {
		body, err := json.Marshal(j.In)
		if err != nil {
			return Request{}, fmt.Errorf("%s %s: %w", c.provider, j.Op, err)
		}
		req.Body, req.Type = body, "application/json"
	}
	return req, nil
}

// DecodeJSON decodes the body of a 2xx answer into j.Out. An answer that
// is not JSON of Out's shape, or that complete finds lacking, fails as
// ClassUncertain: the call may have done its work.
func (c *Caller) DecodeJSON(j JSONCall, res *Response, complete func(out any) bool) error {
	if j.Out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Body, j.Out); err != nil || !complete(j.Out) {
		return c.Fail(j.Op, ClassUncertain, res.Status, "", "an answer that is not the expected JSON")
	}
	return nil
}

// BearerCall sends j with a bearer token and the headers of header,
// retried as its class allows (an uncertain create is not sent again):
// each attempt asks token for the token (an OAuth token source that
// reuses it, whose failure, or an empty token, fails the attempt before
// anything is sent),
// keeps it and j.Secret out of errors, and hands a received answer to
// read with the caller that redacts them.
func (c *Caller) BearerCall(ctx context.Context, j JSONCall, header http.Header, token func(Op) (string, error),
	read func(*Caller, *Response) error) error {
	req, err := c.JSONRequest(j)
	if err != nil {
		return err
	}
	return c.Do(ctx, j.Op, !j.Create, func(ctx context.Context) error {
		tok, err := token(j.Op)
		if err != nil {
			return err
		}
		if tok == "" {
			return c.Fail(j.Op, ClassTemporary, 0, "", "the token endpoint answered without an access token")
		}
		caller := c.WithSecrets(j.Secret, tok)
		req.Header = http.Header{"Authorization": {"Bearer " + tok}}
		for k, v := range header {
			req.Header[k] = v
		}
		res, err := caller.Exchange(ctx, req)
		if err != nil {
			return err
		}
		return read(caller, res)
	})
}

// jsonValue is the value of an Accept or Content-Type header of JSON. It
// and c.agent are shared by the requests (nothing changes a request's
// header values once it is built; http.Client copies the map), so that a
// request allocates none of them.
var jsonValue = []string{"application/json"}

// headerValue is the header value v, shared when it is JSON's.
func headerValue(v string) []string {
	if v == jsonValue[0] {
		return jsonValue
	}
	return []string{v}
}
