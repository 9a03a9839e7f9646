package apiclient

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
)

// FuzzTarget checks the URL of a request against net/url's own join of
// the path to the base URL, for any base path, request path and query.
func FuzzTarget(f *testing.F) {
	// The seed corpus is in testdata/fuzz/FuzzTarget.
	f.Fuzz(func(t *testing.T, basePath, reqPath, key, value string) {
		c, err := NewCaller("test", "https://example.com"+basePath, nil)
		if err != nil {
			return // not a base URL
		}
		r := Request{Path: reqPath}
		if key != "" {
			r.Query = url.Values{key: {value}}
		}
		want := c.base.JoinPath(reqPath)
		want.RawQuery = r.Query.Encode()
		if got := c.target(r); got != want.String() {
			t.Fatalf("base %q, path %q, query %v: target %q, want %q (JoinPath)", c.base, reqPath, r.Query, got, want)
		}
	})
}

// TestTargetSimplePath checks that a simple path is appended to the base
// URL's text and that any other one is joined by net/url.
func TestTargetSimplePath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path   string
		simple bool
	}{
		{"api2/admin/domain/register", true}, {"a", true}, {"v1.0/users", true}, {"...", true}, {"a..b/.c", true},
		{"", false}, {"/a", false}, {"a/", false}, {"a//b", false}, {".", false}, {"..", false}, {"a/./b", false},
		{"a/../b", false}, {"a/..", false}, {"a/.", false}, {"a b", false}, {"a%2Fb", false}, {"a@b", false}, {"é", false},
	} {
		if got := simplePath(tc.path); got != tc.simple {
			t.Errorf("simplePath(%q) = %t, want %t", tc.path, got, tc.simple)
		}
	}
}

// TestReadBody reads answers of every size about the first buffer's and
// the bound, with and without a Content-Length, through a real server.
func TestReadBody(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		_, _ = w.Write(bytes.Repeat([]byte{'x'}, n))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}))
	t.Cleanup(ts.Close)
	c, err := NewCaller("test", ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 511, 512, 513, 4096, MaxBody, MaxBody + 1, MaxBody + 4096} {
		for _, chunked := range []string{"", "1"} {
			q := url.Values{"n": {strconv.Itoa(n)}, "chunked": {chunked}}
			res, err := c.Exchange(t.Context(), Request{Op: OpList, Method: http.MethodGet, Path: "x", Query: q})
			name := fmt.Sprintf("%d bytes, chunked %q", n, chunked)
			switch {
			case n > MaxBody && err == nil:
				t.Errorf("%s: answer of %d bytes read, want an error", name, len(res.Body))
			case n > MaxBody && ClassOf(err) != ClassUncertain:
				t.Errorf("%s: %v, want an uncertain answer larger than the bound", name, err)
			case n <= MaxBody && err != nil:
				t.Errorf("%s: %v", name, err)
			case n <= MaxBody && !bytes.Equal(res.Body, bytes.Repeat([]byte{'x'}, n)):
				t.Errorf("%s: read %d bytes, want %d", name, len(res.Body), n)
			}
		}
	}
}

// TestTargetAllocs bounds the allocations of a request's URL: the query's
// encoding and the one string (net/url's join and String took six more).
func TestTargetAllocs(t *testing.T) {
	c, err := NewCaller("test", "https://example.com/pdd", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Path: "api2/admin/domain/registration_status", Query: url.Values{"domain": {"example.com"}}}
	if n := testing.AllocsPerRun(100, func() { _ = c.target(r) }); n > 3 {
		t.Errorf("target allocates %.0f times, want at most 3", n)
	}
	old := func() { u := c.base.JoinPath(r.Path); u.RawQuery = r.Query.Encode(); _ = u.String() }
	t.Logf("target: %.0f allocations; JoinPath and String: %.0f", testing.AllocsPerRun(100, func() { _ = c.target(r) }), testing.AllocsPerRun(100, old))
}
