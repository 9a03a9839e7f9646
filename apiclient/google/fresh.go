package google

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Google's directory is eventually consistent: right after an insert, a
// read of the new user or alias may answer 403 forbidden, or 404, for a
// while. The client remembers the addresses it inserted lately (fresh) to
// read such an answer as the lag it is, not as refused credentials or a
// missing user.

// freshFor is how long an inserted address counts as fresh ("a few
// minutes" until a new mailbox is set up, Google says).
const freshFor = 10 * time.Minute

// maxFresh bounds the addresses remembered; the oldest go first.
const maxFresh = 1000

// insertState is what the client knows of its insert of an address.
type insertState struct {
	at        time.Time
	confirmed bool   // Google answered the insert with success
	password  []byte // an HMAC of the password a user insert sent (never the password)
}

// lost reports whether s is an insert whose answer was lost: sent, and
// never confirmed.
func (s insertState) lost() bool { return !s.at.IsZero() && !s.confirmed }

// freshSet is the addresses inserted lately. It is safe for concurrent use.
type freshSet struct {
	mu  sync.Mutex
	key []byte // the HMAC key, random per process
	m   map[string]insertState
	now func() time.Time
}

func newFreshSet() *freshSet {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // never fails (crypto/rand documents it)
	return &freshSet{key: key, m: map[string]insertState{}, now: time.Now}
}

// mac is the HMAC of password under the set's key ("" has none).
func (f *freshSet) mac(password string) []byte {
	if password == "" {
		return nil
	}
	h := hmac.New(sha256.New, f.key)
	h.Write([]byte(password))
	return h.Sum(nil)
}

// sent records an insert of address (with password, for a user) about to
// be sent, and returns what was known of an earlier one (ok false: none,
// or none lately).
func (f *freshSet) sent(address, password string) (before insertState, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	address = strings.ToLower(address)
	before, ok = f.live(address)
	f.prune()
	f.m[address] = insertState{at: f.now(), password: f.mac(password)}
	return before, ok
}

// confirmed records that Google answered the insert of address with
// success.
func (f *freshSet) confirmed(address string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	address = strings.ToLower(address)
	if s, ok := f.m[address]; ok {
		s.confirmed = true
		f.m[address] = s
	}
}

// restore puts back what was known of address before an insert that
// certainly did nothing (had false: nothing).
func (f *freshSet) restore(address string, before insertState, had bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	address = strings.ToLower(address)
	if had {
		f.m[address] = before
	} else {
		delete(f.m, address)
	}
}

// samePassword reports whether s recorded password.
func (f *freshSet) samePassword(s insertState, password string) bool {
	return s.password != nil && hmac.Equal(s.password, f.mac(password))
}

// state is what is known of a fresh insert of address.
func (f *freshSet) state(address string) (insertState, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live(strings.ToLower(address))
}

// live is address's state if it is fresh; f.mu is held.
func (f *freshSet) live(address string) (insertState, bool) {
	s, ok := f.m[address]
	if !ok || f.now().Sub(s.at) > freshFor {
		return insertState{}, false
	}
	return s, true
}

// prune drops what is no longer fresh and, past maxFresh, the oldest;
// f.mu is held.
func (f *freshSet) prune() {
	var oldest string
	for a, s := range f.m {
		if f.now().Sub(s.at) > freshFor {
			delete(f.m, a)
		} else if oldest == "" || s.at.Before(f.m[oldest].at) {
			oldest = a
		}
	}
	if len(f.m) >= maxFresh {
		delete(f.m, oldest)
	}
}

// readKey is the userKey a read (GET users/{key} or GET
// users/{key}/aliases) names, "" for any other call.
func readKey(method, path string) string {
	rest, ok := strings.CutPrefix(path, "admin/directory/v1/users/")
	if method != http.MethodGet || !ok {
		return ""
	}
	key, _, _ := strings.Cut(rest, "/")
	key, err := url.PathUnescape(key)
	if err != nil {
		return ""
	}
	return key
}

// freshness is how a read's failure is to be judged: whether it names an
// address inserted lately (attempted) and whether that insert succeeded
// (confirmed).
type freshness struct{ attempted, confirmed bool }

// freshnessOf is the freshness of the read (method, path).
func (c *Client) freshnessOf(method, path string) freshness {
	key := readKey(method, path)
	if key == "" {
		return freshness{}
	}
	s, ok := c.fresh.state(key)
	return freshness{attempted: ok, confirmed: ok && s.confirmed}
}
