package providertest

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// request is one API request as it reached the sandbox.
type request struct {
	key   string // method, URI and a digest of the body: a retry repeats it
	write bool   // a method other than GET and HEAD: the request changes something
	at    time.Time
}

// traffic is the sandbox seen from the suite: every request is recorded
// on arrival, and a fault can be aimed at the next request that changes
// something. An operation may read before it writes (a Yandex 360 adapter
// finds the domain and the user first), so the suite aims its faults at
// the write, where they mean what the contract says.
type traffic struct {
	next Sandbox

	mu    sync.Mutex
	seen  []request
	aimed *aim // a fault for the next write, if any
}

// aim is a fault waiting for the next write.
type aim struct {
	t    *testing.T
	kind string
	n    int
}

func (tr *traffic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	digest := sha256.Sum256(body)
	req := request{key: r.Method + " " + r.URL.RequestURI() + " " + string(digest[:]),
		write: r.Method != http.MethodGet && r.Method != http.MethodHead, at: time.Now()}
	tr.mu.Lock()
	tr.seen = append(tr.seen, req)
	a := tr.aimed
	if req.write {
		tr.aimed = nil
	}
	tr.mu.Unlock()
	if a != nil && req.write {
		if err := tr.next.InjectFault(a.kind, a.n); err != nil {
			a.t.Errorf("InjectFault(%s, %d): %v", a.kind, a.n, err)
		}
	}
	tr.next.ServeHTTP(w, r)
}

// aimAtWrite makes the next write, and the n-1 requests after it, meet the
// fault kind.
func (tr *traffic) aimAtWrite(t *testing.T, kind string, n int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.aimed = &aim{t: t, kind: kind, n: n}
}

// during runs fn and returns the requests that arrived meanwhile.
func (tr *traffic) during(fn func()) calls {
	tr.mu.Lock()
	first := len(tr.seen)
	tr.mu.Unlock()
	fn()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append(calls(nil), tr.seen[first:]...)
}

// calls are the requests of an operation.
type calls []request

// writes are the requests that change something.
func (c calls) writes() calls {
	var w calls
	for _, r := range c {
		if r.write {
			w = append(w, r)
		}
	}
	return w
}

// repeated reports whether a request was sent twice: a retry.
func (c calls) repeated() bool {
	seen := map[string]bool{}
	for _, r := range c {
		if seen[r.key] {
			return true
		}
		seen[r.key] = true
	}
	return false
}
