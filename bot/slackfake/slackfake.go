// Package slackfake is a fake Slack for tests, on loopback. It serves the
// Web API methods mailbot calls (chat.*, conversations.*, usergroups.*,
// views.*), apps.connections.open, up to ten Socket Mode websockets that say
// hello, ping, carry envelopes round-robin and re-deliver the ones nobody
// acknowledged in time, and a sink for response_url posts. It enforces
// Block Kit's limits the way Slack does and records everything the bot
// sends, so that tests can scan it for secrets by audience.
//
// Server is the entry point a test holds; it gives the jobs to types of
// their own: Socket (socket.go, delivery.go: connections, envelopes, acks,
// re-delivery), Faults (webfaults.go, ratetiers.go: how the Web API
// misbehaves on request), chat (messages.go), directory (users.go,
// usergroups.go, files.go) and viewStore (views.go, submit.go) behind
// webapi.go's dispatch, and responseSink (responseurl.go: the response_url
// posts); envelopes.go and events.go are what a test sends, limits.go
// Block Kit's limits and texts.go what each audience saw. All but Faults
// share one lock (hub).
//
// It is test code: only tests import it.
package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mailbot/mailbot/internal/testkit"
)

// Tokens and identities the fake accepts and uses.
const (
	AppToken = "xapp-1-A0FAKE-1-fakeapptoken"
	BotToken = "xoxb-1-fakebottoken"
	BotUser  = "UBOT"
	TeamID   = "T0FAKE"
	AppID    = "A0FAKE"
	BotID    = "B0FAKE"
)

// Slack's numbers that the fake imitates by default.
const (
	// MaxConnections is how many Socket Mode connections an app may hold.
	MaxConnections = 10
	// DefaultRedeliveryAfter is how long Slack waits for an ack before it
	// re-sends an envelope.
	DefaultRedeliveryAfter = 3 * time.Second
	// MaxRetries is how many times Slack re-sends an unacknowledged envelope.
	MaxRetries = 3
	// DefaultTriggerTTL is how long a trigger_id can open a modal.
	DefaultTriggerTTL = 3 * time.Second
)

// Ack is an acknowledgement the bot sent over the socket.
type Ack struct {
	EnvelopeID string
	Payload    json.RawMessage
	At         time.Time // when the fake received it
	Sent       time.Time // when the fake sent the delivery it answers
	Conn       int       // the connection it came on (see Socket.ConnIDs)
}

// Call is one Web API call.
type Call struct {
	Method string
	Form   url.Values // the form fields (token removed); empty for JSON calls
	// JSON is the decoded body of a call sent as JSON (views.*), and Body
	// its raw text; both are empty for form calls.
	JSON map[string]any
	Body string
	At   time.Time
	// TS is the ts of the message the call posts (chat.postMessage) or
	// updates (chat.update), so that a test can click a button of a
	// message the bot posted.
	TS string
}

// Post is one post to a response_url.
type Post struct {
	Path   string
	Body   map[string]any
	Raw    string
	At     time.Time
	Status int  // the HTTP status the fake answered; Posts holds only 200s
	Public bool // everyone in the channel sees it: in_channel, or replacing a clicked message
}

// Rejection is a message, view or ack payload that Slack would refuse (or,
// for an ack, ignore), with the reasons.
type Rejection struct {
	Method   string // the Web API method, "response_url" or "ack"
	Error    string // what Slack answers: invalid_blocks, msg_too_long, invalid_arguments
	Problems []string
	At       time.Time
}

// Server is the fake Slack.
type Server struct {
	URL string // the Web API base URL, ending in "/"
	// Faults is how the Web API misbehaves when a test asks it to.
	Faults *Faults

	// Socket is the Socket Mode side: connections, envelopes, acks.
	Socket *Socket

	srv *httptest.Server

	*hub                // the lock of everything here, Wait's wake-ups, the rejections
	web                 // calls: webapi.go
	chat  *chat         // chat.*, conversations.*: messages.go
	dir   *directory    // users.*, usergroups.*: users.go, usergroups.go
	views *viewStore    // views.*: views.go, submit.go
	sink  *responseSink // response_url posts and faults: responseurl.go
	files files         // uploaded files: files.go

	ts atomic.Int64
}

// hub is the fake's one lock, what wakes those who wait for something to
// arrive, and the log of what Slack would have refused; the Server, its
// Socket, chat, directory and viewStore share it (Faults has its own).
type hub struct {
	mu      sync.Mutex
	cond    *sync.Cond
	arrived chan struct{} // closed and replaced by changed: Wait's wake-up
	closed  bool
	// rejected is what Slack would have refused: messages, views, acks.
	rejected []Rejection
}

func newHub() *hub {
	h := &hub{arrived: make(chan struct{})}
	h.cond = sync.NewCond(&h.mu)
	return h
}

// New starts a fake Slack on loopback. Close it when done.
func New() *Server {
	s := &Server{hub: newHub(), Faults: newFaults()}
	s.chat, s.dir, s.views = newChat(s.hub, s.Faults), newDirectory(s.hub), newViewStore(s.hub)
	s.Socket = newSocket(s.hub, s.views.issueTrigger, s.views.checkAck)
	s.sink = &responseSink{hub: s.hub, chat: s.chat, socket: s.Socket}
	s.handlers = handlersOf(s)
	s.ts.Store(1700000000)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/apps.connections.open", s.connectionsOpen)
	mux.HandleFunc("/api/", s.webAPI)
	mux.HandleFunc("/ws", s.Socket.websocket)
	mux.HandleFunc("/response/", s.sink.serve)
	mux.HandleFunc("/files-pri/", s.files.serve)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/api/"
	return s
}

// Close stops the fake, its re-delivery timers and every socket.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.Socket.stop()
	s.changed()
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// ResponseURL returns a response_url on the fake, unique per name.
func (s *Server) ResponseURL(name string) string { return s.srv.URL + "/response/" + name }

// newTS returns a fresh message ts.
func (s *Server) newTS() string { return fmt.Sprintf("%d.%06d", s.ts.Add(1), 0) }

// changed wakes every waiter; call it with h.mu held.
func (h *hub) changed() {
	h.cond.Broadcast()
	close(h.arrived)
	h.arrived = make(chan struct{})
}

// arrival returns a channel that is closed when something next arrives
// at the fake (or it closes).
func (h *hub) arrival() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.arrived
}

// waitFor waits, under h.mu, until cond holds.
func (h *hub) waitFor(timeout time.Duration, cond func() bool, what string) error {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		h.mu.Lock()
		h.cond.Broadcast()
		h.mu.Unlock()
	})
	defer timer.Stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) || h.closed {
			return fmt.Errorf("slackfake: timed out after %s waiting for %s", timeout, what)
		}
		h.cond.Wait()
	}
	return nil
}

// Wait waits until cond (called with no lock held on the fake's records;
// use the accessors inside it) holds. It checks cond again the moment
// anything arrives at the fake (a call, a post, an ack, a connection), and
// every testkit.PollEvery for conditions on anything else (the bot's
// readiness, a spy's counter).
func (s *Server) Wait(timeout time.Duration, what string, cond func() bool) error {
	if !testkit.Until(timeout, s.arrival, cond) {
		return fmt.Errorf("slackfake: timed out after %s waiting for %s", timeout, what)
	}
	return nil
}

// Rejected returns every message, view and ack payload that Slack would
// have refused, in order; a test asserts it is empty.
func (h *hub) Rejected() []Rejection {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Rejection(nil), h.rejected...)
}

// reject records a refusal; call it with h.mu held.
func (h *hub) reject(method, code string, problems []string) {
	h.rejected = append(h.rejected, Rejection{Method: method, Error: code, Problems: problems, At: time.Now()})
	h.changed()
}
