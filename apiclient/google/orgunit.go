package google

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/mailbot/mailbot/apiclient"
)

// ScopeOrgUnit is the read-only scope of organisational units: asked for,
// and so to be delegated, only when new users go into a unit other than
// the root (Settings.OrgUnit), which the start-up check reads.
const ScopeOrgUnit = "https://www.googleapis.com/auth/admin.directory.orgunit.readonly"

// RootOrgUnit is the customer's top organisational unit.
const RootOrgUnit = "/"

// orgUnitError is a failed start-up read of the organisational unit.
type orgUnitError struct {
	path string
	err  error
}

func (e *orgUnitError) Error() string {
	return "the organisational unit " + e.path + " (GOOGLE_ORG_UNIT): " + e.err.Error()
}

func (e *orgUnitError) Unwrap() error { return e.err }

// IsOrgUnitError reports whether err is Check's error about the
// organisational unit of new users.
func IsOrgUnitError(err error) bool {
	var e *orgUnitError
	return errors.As(err, &e)
}

// checkOrgUnit reads the organisational unit of new users
// (orgunits.get); the root needs no read.
func (c *Client) checkOrgUnit(ctx context.Context) error {
	if c.orgUnit == RootOrgUnit {
		return nil
	}
	segments := strings.Split(strings.TrimPrefix(c.orgUnit, "/"), "/")
	for i, s := range segments {
		segments[i] = url.PathEscape(s)
	}
	var out struct {
		OrgUnitPath string `json:"orgUnitPath"`
	}
	path := "admin/directory/v1/customer/" + c.customer + "/orgunits/" + strings.Join(segments, "/")
	if err := c.call(ctx, request{Op: apiclient.OpCheck, Method: http.MethodGet, Path: path, Out: &out}); err != nil {
		return &orgUnitError{path: c.orgUnit, err: err}
	}
	return nil
}

// newUsersOrgUnit is the orgUnitPath of a new user: empty (the root,
// Google's default) or the configured unit.
func (c *Client) newUsersOrgUnit() string {
	if c.orgUnit == RootOrgUnit {
		return ""
	}
	return c.orgUnit
}
