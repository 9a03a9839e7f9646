// Package yandex360 drives the Yandex 360 for Business directory API, the
// provider of mailbot's "yandex360" setting: users of an organisation are
// its mailboxes, and the organisation's domains are verified by their owner.
//
// The API's facts and the sandbox's assumptions are written down in
// y360sim's package documentation; this client depends on them as little as
// it can:
//
//   - Every call carries "Authorization: OAuth <token>"; the token never
//     appears in an error.
//   - Users belong to the organisation, not to a domain: a mailbox
//     login@domain is the user whose nickname is login, in an organisation
//     that has the domain. The domain is checked against the organisation's
//     domain list first, so that nothing happens for a domain of another
//     organisation.
//   - There is no look-up by address: a user is found by paging through the
//     user list (1,000 a page, the most it gives); a list call reads one
//     page.
//   - Every call needs a permission of the token (permission.go): a 403
//     names the one the call needed.
//   - A failure is an HTTP status with {code, message}: 401 and 403 are
//     refused credentials, 429 and 5xx temporary (a 5xx to a create is
//     uncertain), 400, 404 and 409 refusals (invalid, not found, exists),
//     shown with the provider's message.
//   - A PATCH that sends passwordChangeRequired is refused with 400 by some
//     deployments: the password is then set alone and the result says the
//     change could not be required.
package yandex360

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mailbot/mailbot/apiclient"
)

// DefaultBaseURL is the API's documented host.
const DefaultBaseURL = "https://api360.yandex.net"

// RootDepartment is the department of new users unless told otherwise.
const RootDepartment = 1

// perPage is how many domains a look-up reads a page.
const perPage = 100

// usersPerPage is how many users a look-up reads a page: the most the
// user list gives [UserService_List].
const usersPerPage = 1000

// maxPages bounds a look-up that pages (1000 × 1000 users).
const maxPages = 1000

// Settings are the client's choices beyond the credentials.
type Settings struct {
	// OrgID is the organisation; 0 leaves it to [Client.Check], which
	// takes the one organisation the token sees.
	OrgID int64
	// DepartmentID is the department of new users; 0 means RootDepartment.
	DepartmentID int64
}

// Client is a client of one organisation. It is safe for concurrent use
// once [Client.Check] has chosen the organisation.
type Client struct {
	caller *apiclient.Caller
	org    atomic.Int64
	dept   int64
}

// New returns a client of the API at baseURL (https, or http to a loopback
// host) that authenticates with the OAuth token.
func New(baseURL, token string, s Settings, opts ...apiclient.Option) (*Client, error) {
	if strings.TrimSpace(token) == "" {
		return nil, errors.New("yandex360: empty token")
	}
	if s.OrgID < 0 || s.DepartmentID < 0 {
		return nil, errors.New("yandex360: organisation and department IDs are positive numbers")
	}
	caller, err := apiclient.NewCaller(apiclient.ProviderYandex360, baseURL,
		http.Header{"Authorization": {"OAuth " + token}}, opts...)
	if err != nil {
		return nil, err
	}
	c := &Client{caller: caller, dept: s.DepartmentID}
	if c.dept == 0 {
		c.dept = RootDepartment
	}
	c.org.Store(s.OrgID)
	return c, nil
}

// Name is apiclient.ProviderYandex360.
func (c *Client) Name() string { return apiclient.ProviderYandex360 }

// Capabilities: a password change can be required (UserService_Create and
// Update take passwordChangeRequired); a blocked user (isEnabled false) is
// not documented to keep receiving mail, so the core promises it does not;
// users have IDs; the user list is paged; domains are verified; a user
// belongs to the organisation and has its own address (email); users have
// aliases, names valid at every domain of the organisation (alias.go).
func (c *Client) Capabilities() apiclient.Capabilities {
	return apiclient.Capabilities{Title: Title, ForcePasswordChange: true, UIDs: true, Paged: true, VerifiesOwnership: true, OwnAddresses: true,
		Aliases: true, OrgWideAliases: true}
}

// OrgID is the organisation the client acts on, 0 before [Client.Check]
// found it.
func (c *Client) OrgID() int64 { return c.org.Load() }

// request is one call of the API.
type request = apiclient.JSONCall

// call sends r, retried as its class allows, and decodes the answer.
func (c *Client) call(ctx context.Context, r request) error {
	req, err := c.caller.JSONRequest(r)
	if err != nil {
		return err
	}
	caller := c.caller.WithSecrets(r.Secret)
	return caller.Do(ctx, r.Op, !r.Create, func(ctx context.Context) error {
		res, err := caller.Exchange(ctx, req)
		if err != nil {
			return err
		}
		return read(caller, r, res)
	})
}

// read decodes a 2xx answer into r.Out, and classifies any other.
func read(caller *apiclient.Caller, r request, res *apiclient.Response) error {
	if res.Status >= 200 && res.Status < 300 {
		return caller.DecodeJSON(r, res, complete)
	}
	message := errorMessage(res.Status, res.Body, caller.Secrets())
	if res.Status == http.StatusForbidden {
		message = forbidden(r.Method, r.Path, message)
	}
	e := caller.Fail(r.Op, apiclient.StatusClass(res.Status, r.Create), res.Status,
		"HTTP "+strconv.Itoa(res.Status), message)
	e.Reason = reasonOf(res.Status)
	e.RetryAfter = apiclient.RetryAfter(res.Header, time.Now())
	return e
}

// complete reports whether a decoded answer has what the client needs: a
// user its ID.
func complete(out any) bool {
	u, ok := out.(*userJSON)
	return !ok || u.ID != ""
}

// errorMessage returns the message of an error body ({code, message,
// details}); of an HTML page (a proxy's or gateway's 502), the status in
// words; of a body of another shape, an excerpt.
func errorMessage(status int, body []byte, secrets []string) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return apiclient.Excerpt([]byte(e.Message), apiclient.MaxCodeLen, secrets...)
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		return strings.ToLower(http.StatusText(status)) + " (an error page, not the API's answer)"
	}
	return apiclient.Excerpt(body, apiclient.ExcerptLen, secrets...)
}

// reasonOf refines a refusal by its HTTP status.
func reasonOf(status int) apiclient.Reason {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return apiclient.ReasonInvalid
	case http.StatusNotFound:
		return apiclient.ReasonNotFound
	case http.StatusConflict:
		return apiclient.ReasonExists
	}
	return ""
}

// refuse is a refusal decided without asking the API: nothing was sent.
func (c *Client) refuse(op apiclient.Op, reason apiclient.Reason, message string) *apiclient.Error {
	return &apiclient.Error{Provider: apiclient.ProviderYandex360, Op: op, Class: apiclient.ClassRefused, Reason: reason, Message: message}
}

// orgPath returns the path of rest under the organisation, or an error
// when no organisation is chosen.
func (c *Client) orgPath(op apiclient.Op, rest string) (string, error) {
	org := c.org.Load()
	if org == 0 {
		return "", &apiclient.Error{Provider: apiclient.ProviderYandex360, Op: op, Class: apiclient.ClassCredentials,
			Message: "no organisation chosen (Check finds it)"}
	}
	return "directory/v1/org/" + strconv.FormatInt(org, 10) + "/" + rest, nil
}

// domainName returns domain in lower case without a trailing dot,
// refusing a name that could change a path it is put in.
func (c *Client) domainName(op apiclient.Op, domain string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(domain), ".")
	if strings.Trim(d, ".") == "" || strings.ContainsAny(d, "/\\?#%") {
		return "", c.refuse(op, apiclient.ReasonInvalid, "not a domain name")
	}
	return d, nil
}

// CheckLogin checks a nickname by the rule mailbot keeps for Yandex 360
// ([apiclient.StrictLogin]: its public record states none stricter), for
// every command alike.
func (c *Client) CheckLogin(login string) error { return apiclient.StrictLogin(login) }

// Title names the provider in replies, notices and the shell's banner.
const Title = "Yandex 360"
