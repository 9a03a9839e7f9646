package slackfake

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// Slack's rate tiers: how many calls of one method one app's token may
// make a minute in a workspace (docs.slack.dev, "Rate limits"). Slack
// allows short bursts above them; the fake does not.
const (
	Tier1 = 1
	Tier2 = 20
	Tier3 = 50
	Tier4 = 100
)

// MethodTiers is the tier of each method mailbot calls, as each method's
// page on docs.slack.dev gives it. chat.postMessage is not in a tier: it
// may post one message a second to a channel, with bursts
// (postPerChannel a minute per channel; Slack's own limit on a whole
// workspace, "several hundred a minute", is not modelled).
var MethodTiers = map[string]int{
	"auth.test":             Tier4, // "Special": generous; Tier 4 is no kinder
	"apps.connections.open": Tier1,
	"users.info":            Tier4,
	"users.lookupByEmail":   Tier3,
	"users.list":            Tier2,
	"conversations.open":    Tier3,
	"conversations.history": Tier3,
	"conversations.replies": Tier3,
	"chat.update":           Tier3,
	"chat.postEphemeral":    Tier4,
	"usergroups.list":       Tier2,
	"usergroups.users.list": Tier2,
	"views.open":            Tier4,
	"views.update":          Tier4,
	"views.publish":         Tier4,
}

// postPerChannel is chat.postMessage's limit: one message a second per
// channel on average, as a minute's allowance so that a burst passes.
const postPerChannel = 60

// tiers is the fake's rate limiter: a sliding window per method and token
// (and channel, for chat.postMessage). s.mu guards it.
type tiers struct {
	window  time.Duration          // 0: off; a minute as Slack counts
	recent  map[string][]time.Time // key -> the calls within the window
	limited map[string]int         // method -> 429s answered
}

// SetRateTiers makes the Web API answer HTTP 429 with Retry-After beyond
// each method's tier, per method and token, as Slack does: Tier N calls
// within a window of minute (time.Minute is Slack's; a shorter one makes
// a test's minute pass sooner, the counts unchanged), and 60
// chat.postMessage per channel a minute. 0 turns the limits off (the
// default).
func (s *Server) SetRateTiers(minute time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tiers = tiers{window: minute, recent: map[string][]time.Time{}, limited: map[string]int{}}
}

// RateLimited returns how many calls of method the tiers answered with
// 429.
func (s *Server) RateLimited(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tiers.limited[method]
}

// overTier reports whether q goes beyond its method's tier, and when to
// try again; call it with s.mu held. A refused call does not count.
func (s *Server) overTier(q *apiRequest, now time.Time) (time.Duration, bool) {
	if s.tiers.window == 0 {
		return 0, false
	}
	key, limit, window := q.method+" "+q.token, MethodTiers[q.method], s.tiers.window
	if q.method == "chat.postMessage" {
		key, limit = key+" "+q.get("channel"), postPerChannel
	}
	if limit == 0 {
		return 0, false
	}
	calls := s.tiers.recent[key]
	for len(calls) > 0 && now.Sub(calls[0]) >= window {
		calls = calls[1:]
	}
	if len(calls) >= limit {
		s.tiers.recent[key] = calls
		s.tiers.limited[q.method]++
		return calls[0].Add(window).Sub(now), true
	}
	s.tiers.recent[key] = append(calls, now)
	return 0, false
}

// tooMany answers 429 with Retry-After in whole seconds, at least 1, as
// Slack does.
func tooMany(w http.ResponseWriter, after time.Duration) {
	secs := max(1, int(math.Ceil(after.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.WriteHeader(http.StatusTooManyRequests)
}
