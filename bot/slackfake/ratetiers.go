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
// (and channel, for chat.postMessage). f.mu guards it.
type tiers struct {
	window  time.Duration          // 0: off; a minute as Slack counts
	recent  map[string][]time.Time // key -> the calls within the window
	limited map[string]int         // method -> 429s answered
}

// tooMany answers 429 with Retry-After in whole seconds, at least 1, as
// Slack does.
func tooMany(w http.ResponseWriter, after time.Duration) {
	secs := max(1, int(math.Ceil(after.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.WriteHeader(http.StatusTooManyRequests)
}
