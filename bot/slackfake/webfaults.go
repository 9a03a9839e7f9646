package slackfake

import (
	"sync"
	"time"
)

// Faults is how the fake's Web API misbehaves when a test asks it to:
// error codes, 429s, refused tokens, delays, held answers, channels that
// are not found, and Slack's rate tiers. Server.Faults is the fake's; it
// has its own lock.
type Faults struct {
	mu          sync.Mutex
	failures    map[string][]string // method -> error codes to answer, in order
	rateLimited map[string]int      // method -> 429s to answer
	authError   map[string]string   // token kind "app"/"bot" -> error
	callDelay   time.Duration
	methodDelay map[string]time.Duration
	notFound    map[string]bool          // channels that answer channel_not_found
	tiers       tiers                    // Slack's rate tiers: ratetiers.go
	held        map[string]chan struct{} // method -> closed when its calls may answer
}

func newFaults() *Faults {
	return &Faults{
		failures:    map[string][]string{},
		rateLimited: map[string]int{},
		authError:   map[string]string{},
		methodDelay: map[string]time.Duration{},
		notFound:    map[string]bool{},
		held:        map[string]chan struct{}{},
	}
}

// arranged is what the test arranged for one Web API call.
type arranged struct {
	delay   time.Duration
	authErr string // the bot token's
	code    string // an error code to answer
	limited bool   // a 429 with Retry-After: 1
	retry   time.Duration
	over    bool // over its rate tier: a 429 with Retry-After: retry
	hold    chan struct{}
}

// take returns what was arranged for q, arriving at now, and uses up the
// one-shot parts (an error code, a 429).
func (f *Faults) take(q *apiRequest, now time.Time) arranged {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := arranged{delay: f.callDelay + f.methodDelay[q.method], authErr: f.authError["bot"], hold: f.held[q.method]}
	if fs := f.failures[q.method]; len(fs) > 0 {
		a.code, f.failures[q.method] = fs[0], fs[1:]
	}
	a.limited = f.rateLimited[q.method] > 0
	if a.limited {
		f.rateLimited[q.method]--
	}
	a.retry, a.over = f.overTier(q, now)
	return a
}

// appAuthError is the error arranged for the app token ("" for none).
func (f *Faults) appAuthError() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.authError["app"]
}

// FailNext makes the next calls of method answer {"ok":false,"error":code},
// one call per code.
func (f *Faults) FailNext(method string, codes ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = append(f.failures[method], codes...)
}

// RateLimitNext makes the next n calls of method answer 429 with
// Retry-After: 1.
func (f *Faults) RateLimitNext(method string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rateLimited[method] += n
}

// Hold makes the calls of method wait for their answer until release is
// called.
func (f *Faults) Hold(method string) (release func()) {
	ch := make(chan struct{})
	f.mu.Lock()
	f.held[method] = ch
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.held, method)
			f.mu.Unlock()
			close(ch)
		})
	}
}

// RejectToken makes every call with the app ("app") or bot ("bot") token
// answer the error code, such as "invalid_auth".
func (f *Faults) RejectToken(kind, code string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.authError[kind] = code
}

// SetCallDelay delays every Web API answer.
func (f *Faults) SetCallDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.callDelay = d
}

// SetMethodDelay delays the answers of one Web API method (on top of
// SetCallDelay); 0 removes the delay.
func (f *Faults) SetMethodDelay(method string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.methodDelay[method] = d
}

// SetChannelNotFound makes chat.postMessage, chat.postEphemeral,
// chat.update and conversations.history in channel answer
// channel_not_found (as for a private channel the bot is not in) until
// ClearChannelNotFound.
func (f *Faults) SetChannelNotFound(channel string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notFound[channel] = true
}

// ClearChannelNotFound undoes SetChannelNotFound.
func (f *Faults) ClearChannelNotFound(channel string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.notFound, channel)
}

// channelNotFound reports whether channel was made to answer
// channel_not_found.
func (f *Faults) channelNotFound(channel string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notFound[channel]
}

// SetRateTiers makes the Web API answer HTTP 429 with Retry-After beyond
// each method's tier, per method and token, as Slack does: Tier N calls
// within a window of minute (time.Minute is Slack's; a shorter one makes
// a test's minute pass sooner, the counts unchanged), and 60
// chat.postMessage per channel a minute. 0 turns the limits off (the
// default).
func (f *Faults) SetRateTiers(minute time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tiers = tiers{window: minute, recent: map[string][]time.Time{}, limited: map[string]int{}}
}

// RateLimited returns how many calls of method the tiers answered with
// 429.
func (f *Faults) RateLimited(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tiers.limited[method]
}

// overTier reports whether q goes beyond its method's tier, and when to
// try again; call it with f.mu held. A refused call does not count.
func (f *Faults) overTier(q *apiRequest, now time.Time) (time.Duration, bool) {
	if f.tiers.window == 0 {
		return 0, false
	}
	key, limit, window := q.method+" "+q.token, MethodTiers[q.method], f.tiers.window
	if q.method == "chat.postMessage" {
		key, limit = key+" "+q.get("channel"), postPerChannel
	}
	if limit == 0 {
		return 0, false
	}
	calls := f.tiers.recent[key]
	for len(calls) > 0 && now.Sub(calls[0]) >= window {
		calls = calls[1:]
	}
	if len(calls) >= limit {
		f.tiers.recent[key] = calls
		f.tiers.limited[q.method]++
		return calls[0].Add(window).Sub(now), true
	}
	f.tiers.recent[key] = append(calls, now)
	return 0, false
}
