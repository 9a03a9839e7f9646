package googlesim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

// The Directory API is eventually consistent: a user or alias just created
// may be unreadable for a while. Right after users.insert, users.get of
// the new user answers 403 forbidden "Not Authorized to access this
// resource/api" [field: hashicorp/terraform-provider-googleworkspace#492],
// or 404 notFound for moments [field: GAM's retries after a create;
// assumed]. The sandbox makes that lag a control, never a clock: with
// [Server.SetLag] each user or alias created afterwards is invisible to
// the next n reads that name it (users.get by any of its keys,
// users.aliases.list of the user), which answer the lag's status; writes
// (an insert of the same address: 409 duplicate, an update, a delete) see
// it at once. [Server.Settle] ends every lag.

// SetLag makes each user and alias created from now on invisible to the
// next reads reads that name it, answered with status: 403 (forbidden, as
// the field reports) or 404 (notFound). reads 0 ends the lag for objects
// created later.
func (s *Server) SetLag(reads, status int) error {
	if reads < 0 || reads > MaxFaults || status != http.StatusForbidden && status != http.StatusNotFound {
		return fmt.Errorf("googlesim: a lag of %d reads answered %d: want 0 to %d reads, 403 or 404", reads, status, MaxFaults)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lagReads, s.lagStatus = reads, status
	return nil
}

// Settle makes every user and alias visible at once.
func (s *Server) Settle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.users {
		u.hidden = 0
	}
	clear(s.aliasHidden)
}

// lagging answers a read of key that meets a lag, counting the read: the
// alias key names, or the user it names; s.mu is held.
func (s *Server) lagging(key string) (reply, bool) {
	k := strings.ToLower(key)
	if n := s.aliasHidden[k]; n > 0 {
		s.aliasHidden[k]--
		return s.lagReply(), true
	}
	if u := s.findUser(key); u != nil && u.hidden > 0 {
		u.hidden--
		return s.lagReply(), true
	}
	return reply{}, false
}

func (s *Server) lagReply() reply {
	if s.lagStatus == http.StatusNotFound {
		return notFound("Resource Not Found: userKey")
	}
	return forbidden()
}

// Another customer's domains: a userKey there, or a new user or alias
// there, answers 403 domainCannotUseApis "Domain cannot use apis." (as the
// brief of this sandbox has it; GAM-team/GAM#137 reports the same answer
// when the Workspace's API access is off).

// AddForeignDomain makes name a domain of another Workspace customer.
func (s *Server) AddForeignDomain(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.foreign[strings.ToLower(name)] = true
}

// foreignKey reports whether key is an address in another customer's
// domain; s.mu is held.
func (s *Server) foreignKey(key string) bool {
	_, dom, ok := strings.Cut(strings.ToLower(key), "@")
	return ok && s.foreign[dom]
}

func domainCannotUseApis() reply {
	return failure(http.StatusForbidden, "domainCannotUseApis", "Domain cannot use apis.")
}

// An API not enabled in the key's Cloud project answers every call 403
// accessNotConfigured, with a google.rpc.ErrorInfo detail of reason
// SERVICE_DISABLED naming the service [field: the "has not been used in
// project … before or it is disabled" answers of Google APIs].

// The services [Server.DisableAPI] knows.
const (
	ServiceDirectory    = "admin.googleapis.com"
	ServiceVerification = "siteverification.googleapis.com"
)

// DisableAPI makes every call of service (ServiceDirectory or
// ServiceVerification) answer 403 accessNotConfigured; enabled false
// undoes it.
func (s *Server) DisableAPI(service string, disabled bool) error {
	if service != ServiceDirectory && service != ServiceVerification {
		return fmt.Errorf("googlesim: unknown service %q (want %s or %s)", service, ServiceDirectory, ServiceVerification)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disabled[service] = disabled
	return nil
}

// serviceOf is the service of an API path.
func serviceOf(path string) (service, title string) {
	if strings.HasPrefix(path, verificationPrefix) {
		return ServiceVerification, "Site Verification API"
	}
	return ServiceDirectory, "Admin SDK API"
}

// serviceDisabled is the answer of a call to a disabled service.
func serviceDisabled(path string) reply {
	service, title := serviceOf(path)
	message := title + " has not been used in project 1234567890 before or it is disabled. Enable it by visiting " +
		"https://console.developers.google.com/apis/api/" + service + "/overview?project=1234567890 then retry."
	r := failure(http.StatusForbidden, "accessNotConfigured", message)
	b := r.body.(errorBody)
	b.Error.Errors[0].Domain = "usageLimits"
	b.Error.Status = "PERMISSION_DENIED"
	b.Error.Details = []errorDetail{{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: "SERVICE_DISABLED",
		Domain: "googleapis.com", Metadata: map[string]string{"service": service, "consumer": "projects/1234567890"}}}
	return reply{r.status, b}
}

// consistencyControls serves /sim/lag, /sim/settle, /sim/foreign and
// /sim/disable.
func (s *Server) consistencyControls() {
	s.mux.HandleFunc("POST /sim/lag", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "reads", 1, MaxFaults)
		if err != nil {
			return err
		}
		status, err := strconv.Atoi(r.FormValue("status"))
		if err != nil {
			return fmt.Errorf("status=%q: want 403 or 404", r.FormValue("status"))
		}
		return s.SetLag(n, status)
	}))
	s.mux.HandleFunc("POST /sim/settle", control(func(*http.Request) error { s.Settle(); return nil }))
	s.mux.HandleFunc("POST /sim/foreign", control(func(r *http.Request) error { s.AddForeignDomain(r.FormValue("name")); return nil }))
	s.mux.HandleFunc("POST /sim/disable", control(func(r *http.Request) error {
		return s.DisableAPI(r.FormValue("service"), r.FormValue("disabled") != "false")
	}))
}
