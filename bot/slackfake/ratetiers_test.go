package slackfake

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/slack-go/slack"
)

// TestRateTiers: beyond a method's tier within the window, Slack answers
// 429 with Retry-After until the oldest call leaves the window; per
// method and per token; chat.postMessage 60 a minute per channel.
func TestRateTiers(t *testing.T) {
	f := newFake(t)
	f.Faults.SetRateTiers(time.Hour) // nothing leaves the window during the test
	api := newAPI(f)
	other := slack.New("xoxb-2-otherapp", slack.OptionAPIURL(f.URL))
	for i := range Tier3 {
		if _, err := api.GetUserByEmail(fmt.Sprintf("nobody%d@example.com", i)); !isSlackError(err, "users_not_found") {
			t.Fatalf("call %d within the tier: %v", i, err)
		}
	}
	_, err := api.GetUserByEmail("one.more@example.com")
	var rl *slack.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter < 59*time.Minute {
		t.Fatalf("call 51 of a Tier 3 method: %v, want 429 with Retry-After near the hour window", err)
	}
	if f.Faults.RateLimited("users.lookupByEmail") != 1 {
		t.Errorf("RateLimited %d, want 1", f.Faults.RateLimited("users.lookupByEmail"))
	}
	if _, err := api.GetUserInfo("U1"); err != nil {
		t.Errorf("another method is counted apart: %v", err)
	}
	if _, err := other.GetUserByEmail("x@example.com"); !isSlackError(err, "invalid_auth") {
		t.Errorf("another token is counted apart: %v", err)
	}
	for i := range postPerChannel {
		if _, _, err := api.PostMessage("C1", slack.MsgOptionText("a", false)); err != nil {
			t.Fatalf("post %d of a burst: %v", i, err)
		}
	}
	if _, _, err := api.PostMessage("C2", slack.MsgOptionText("b", false)); err != nil {
		t.Errorf("another channel is counted apart: %v", err)
	}
	if _, _, err := api.PostMessage("C1", slack.MsgOptionText("c", false)); !errors.As(err, &rl) {
		t.Errorf("post 61 to C1 within its minute: %v, want 429", err)
	}
}

// TestRateTierWindowPasses: once the window has passed, calls go through.
func TestRateTierWindowPasses(t *testing.T) {
	f := newFake(t)
	f.Faults.SetRateTiers(60 * time.Millisecond) // a minute of 60 ms: a post a millisecond
	api := newAPI(f)
	for range Tier2 {
		if _, err := api.GetUsersPaginated(slack.GetUsersOptionLimit(10)).Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Wait(time.Second, "the window to pass", func() bool {
		_, err := api.GetUsersPaginated(slack.GetUsersOptionLimit(10)).Next(t.Context())
		return err == nil
	}); err != nil {
		t.Fatal(err)
	}
	if f.Faults.RateLimited("users.list") == 0 {
		t.Error("no call was limited within the window")
	}
}

// TestUsersListPages: users.list pages the directory by cursor, at most
// 1,000 a page, without hidden people; users.info answers
// user_not_visible for them and lookupByEmail does not find them.
func TestUsersListPages(t *testing.T) {
	f := newFake(t)
	api := newAPI(f)
	for i := range 2500 {
		f.SetUser(User{ID: fmt.Sprintf("U%05d", i), Email: fmt.Sprintf("p%d@example.com", i)})
	}
	f.SetUser(User{ID: "UHIDDEN", Email: "hidden@example.com", NotVisible: true})
	if _, err := api.GetUsersPaginated(slack.GetUsersOptionLimit(5000)).Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	p := api.GetUsersPaginated(slack.GetUsersOptionLimit(5000))
	seen, pages := map[string]bool{}, 0
	var err error
	for err == nil {
		if p, err = p.Next(t.Context()); err == nil {
			pages++
			if len(p.Users) > maxUsersPage {
				t.Fatalf("a page of %d", len(p.Users))
			}
			for _, u := range p.Users {
				seen[u.ID] = true
			}
		}
	}
	if !p.Done(err) {
		t.Fatal(err)
	}
	if len(seen) != 2500 || pages != 3 || seen["UHIDDEN"] {
		t.Errorf("%d people in %d pages (hidden listed: %v), want 2500 in 3", len(seen), pages, seen["UHIDDEN"])
	}
	if _, err := api.GetUserInfo("UHIDDEN"); !isSlackError(err, "user_not_visible") {
		t.Errorf("users.info of a hidden person: %v", err)
	}
	if _, err := api.GetUserByEmail("hidden@example.com"); !isSlackError(err, "users_not_found") {
		t.Errorf("lookupByEmail of a hidden person: %v", err)
	}
}

func isSlackError(err error, code string) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && se.Err == code
}
