package apiclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"path"
	"sync/atomic"
)

// newRequest is the HTTP request of r under the Caller's base URL, with
// the Caller's headers, then r's, then the content type, Accept and
// User-Agent.
func (c *Caller) newRequest(ctx context.Context, r Request) (*http.Request, error) {
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, c.target(r), body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", c.provider, r.Op, err)
	}
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.Type != "" {
		req.Header["Content-Type"] = headerValue(r.Type)
	}
	req.Header["Accept"] = jsonValue
	req.Header["User-Agent"] = c.agent
	return req, nil
}

// target is the URL of r: r.Path joined to the base URL as
// url.URL.JoinPath joins it, and r.Query (or r.RawQuery). A simple path (simplePath) is
// appended to the base URL's text, which JoinPath would give too,
// without building and cleaning the URL again per request.
func (c *Caller) target(r Request) string {
	query := r.RawQuery
	if r.Query != nil {
		query = r.Query.Encode()
	}
	if c.prefix != "" && simplePath(r.Path) {
		if query == "" {
			return c.prefix + r.Path
		}
		return c.prefix + r.Path + "?" + query
	}
	u := c.base.JoinPath(r.Path)
	u.RawQuery = query
	return u.String()
}

// joinPrefix is base as text when a simple path appended to it is the
// URL that JoinPath gives (its path clean and ending in a slash), else "".
func joinPrefix(base *url.URL) string {
	p := base.EscapedPath()
	if p != "/" && path.Clean(p)+"/" != p {
		return ""
	}
	s := base.String()
	if base.JoinPath("a").String() != s+"a" {
		return ""
	}
	return s
}

// simplePath reports whether p is segments of letters, digits and
// "-._~", none of them "." or "..", joined by single slashes: a path that
// neither escaping nor cleaning changes.
func simplePath(p string) bool {
	seg := 0 // the length of the current segment
	for i := 0; i < len(p); i++ {
		switch b := p[i]; {
		case b == '/':
			if seg == 0 || p[i-1] == '.' && (seg == 1 || seg == 2 && p[i-2] == '.') {
				return false
			}
			seg = 0
		case unreservedByte(b):
			seg++
		default:
			return false
		}
	}
	n := len(p)
	return seg > 0 && !(p[n-1] == '.' && (seg == 1 || seg == 2 && p[n-2] == '.'))
}

// sentTrace records whether a request's headers were written, in one
// allocation with the trace that tells it. The transport calls
// WroteHeaders from its own goroutine, which may still run when Do has
// returned (a timeout): hence the atomic.
type sentTrace struct {
	wrote atomic.Bool
	trace httptrace.ClientTrace
}

func newSentTrace() *sentTrace {
	s := &sentTrace{}
	s.trace.WroteHeaders = func() { s.wrote.Store(true) }
	return s
}

// readBody reads an answer's body, at most MaxBody+1 bytes, into a buffer
// of its announced size (size, -1 when unknown) when it has one.
func readBody(r io.Reader, size int64) ([]byte, error) {
	const limit = MaxBody + 1
	n := 512
	if size >= 0 && size < limit {
		n = int(size) + 1 // room to see the end without growing
	}
	b := make([]byte, 0, n)
	for len(b) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):min(cap(b), limit)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
