package yandex360

import (
	"net/http"
	"strings"
)

// The permissions (OAuth scopes) of the directory API that mailbot's calls
// need. A write permission includes its read permission.
const (
	permReadOrganization = "directory:read_organization"
	permReadUsers        = "directory:read_users"
	permWriteUsers       = "directory:write_users"
	permReadDomains      = "directory:read_domains"
	permWriteDomains     = "directory:write_domains"
)

// permissionOf is the permission a call (method, path under the base URL)
// needs: the organisation list read_organization, users and their aliases
// read_users or write_users, domains read_domains or write_domains.
func permissionOf(method, path string) string {
	rest, ok := strings.CutPrefix(path, "directory/v1/org/")
	if !ok {
		return permReadOrganization
	}
	_, rest, _ = strings.Cut(rest, "/") // the organisation's ID
	read := method == http.MethodGet
	switch {
	case strings.HasPrefix(rest, "domains") && read:
		return permReadDomains
	case strings.HasPrefix(rest, "domains"):
		return permWriteDomains
	case read:
		return permReadUsers
	}
	return permWriteUsers
}

// forbidden is the message of a 403: the permission the call needs, which
// the token lacks (or the organisation, which it does not see).
func forbidden(method, path, message string) string {
	s := "the token needs the permission " + permissionOf(method, path)
	if strings.HasPrefix(path, "directory/v1/org/") {
		s += " (or the organisation)"
	}
	return s + ": " + message
}
