package y360sim

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The permissions (OAuth scopes) of the directory API that the sandbox
// serves. Each service of the API names a read permission ("view") and a
// write permission ("view and change") [doc: the OrganizationsService,
// UserService and DomainService pages].
const (
	ReadOrganization = "directory:read_organization"
	ReadUsers        = "directory:read_users"
	WriteUsers       = "directory:write_users"
	ReadDomains      = "directory:read_domains"
	WriteDomains     = "directory:write_domains"
)

// AllPermissions are the permissions a token of [Server.NewAccount] has.
var AllPermissions = []string{ReadOrganization, ReadUsers, WriteUsers, ReadDomains, WriteDomains}

// implies is the read permission a write permission includes (a write
// permission is "view and change" [doc]), or "". A switch, not a map: the
// package has no initialiser (simkit.Pattern says why).
func implies(p string) string {
	switch p {
	case WriteUsers:
		return ReadUsers
	case WriteDomains:
		return ReadDomains
	case "directory:write_organization":
		return ReadOrganization
	}
	return ""
}

// permitted reports whether a token with perms may make a call that needs
// need.
func permitted(perms []string, need string) bool {
	return slices.ContainsFunc(perms, func(p string) bool { return p == need || implies(p) == need })
}

// checkPermissions refuses a permission the sandbox does not know.
func checkPermissions(perms []string) error {
	known := append(slices.Clone(AllPermissions), "directory:write_organization")
	for _, p := range perms {
		if !slices.Contains(known, p) {
			return fmt.Errorf("y360sim: unknown permission %q (want %s)", p, strings.Join(known, ", "))
		}
	}
	return nil
}

// permissionDenied is the answer to a call the token's permissions do not
// allow, or to an organisation the token does not see: 403
// PERMISSION_DENIED, naming neither [assumed].
func permissionDenied() reply {
	return failure(http.StatusForbidden, codePermissionDenied, "Permission denied")
}
