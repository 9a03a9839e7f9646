package m365sim

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mailbot/mailbot/apiclient/internal/simkit"
)

func (s *Server) controlRoutes() {
	s.mux.HandleFunc("POST /sim/account", func(w http.ResponseWriter, _ *http.Request) {
		a := s.NewAccount()
		simkit.WriteJSON(w, http.StatusOK, map[string]string{"tenant_id": a.TenantID, "client_id": a.ClientID,
			"client_secret": a.ClientSecret, "license": a.License, "admin": a.Admin})
	})
	s.mux.HandleFunc("POST /sim/fault", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "n", 1, MaxFaults)
		if err != nil {
			return err
		}
		return s.InjectFault(r.FormValue("kind"), n)
	}))
	s.mux.HandleFunc("POST /sim/latency", control(func(r *http.Request) error {
		d, err := time.ParseDuration(r.FormValue("d"))
		if err != nil || d < 0 {
			return fmt.Errorf("d=%q is not a duration such as 250ms", r.FormValue("d"))
		}
		s.SetLatency(d)
		return nil
	}))
	s.stateRoutes()
	s.mux.HandleFunc("GET /sim/requests", func(w http.ResponseWriter, _ *http.Request) {
		simkit.WriteJSON(w, http.StatusOK, map[string]int{"requests": s.Requests(), "tokens": s.TokenRequests()})
	})
	s.mux.HandleFunc("GET /sim/mailbox", s.controlMailbox)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprint(w, strings.TrimLeft(indexText, "\n"))
	})
}

// stateRoutes are the controls that change the tenant.
func (s *Server) stateRoutes() {
	s.mux.HandleFunc("POST /sim/domain", control(func(r *http.Request) error { s.AddDomain(r.FormValue("name")); return nil }))
	s.mux.HandleFunc("POST /sim/publish", control(func(r *http.Request) error { s.PublishTXT(r.FormValue("name")); return nil }))
	s.mux.HandleFunc("POST /sim/mailboxes", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "n", 1, MaxFaults)
		if err == nil {
			s.AddMailboxes(r.FormValue("domain"), n)
		}
		return err
	}))
	s.mux.HandleFunc("POST /sim/seats", control(func(r *http.Request) error {
		n, err := simkit.Count(r, "n", -1, 1000000)
		if err != nil {
			return err
		}
		return s.SetSeats(r.FormValue("sku"), n)
	}))
	s.mux.HandleFunc("POST /sim/proxy", control(func(r *http.Request) error {
		return s.AddProxyAddress(r.FormValue("address"), r.FormValue("proxy"))
	}))
	s.mux.HandleFunc("POST /sim/role", control(func(r *http.Request) error {
		return s.AddRole(r.FormValue("address"), r.FormValue("role"))
	}))
	s.mux.HandleFunc("POST /sim/permissions", control(func(r *http.Request) error {
		var perms []string
		if p := r.FormValue("perms"); p != "" {
			perms = strings.Split(p, ",")
		}
		return s.SetPermissions(r.FormValue("client_id"), r.FormValue("user_admin") == "true", perms...)
	}))
}

// controlMailbox is GET /sim/mailbox?address=…: [MailboxInfo], or 404.
func (s *Server) controlMailbox(w http.ResponseWriter, r *http.Request) {
	m, ok := s.Mailbox(r.FormValue("address"))
	if !ok {
		simkit.WriteJSON(w, http.StatusNotFound, map[string]string{"error": "no such mailbox"})
		return
	}
	simkit.WriteJSON(w, http.StatusOK, m)
}

const indexText = `
Microsoft 365 sandbox (mailbot sim --provider m365)

Token endpoint (client credentials, form or HTTP Basic):
  POST /{tenant}/oauth2/v2.0/token   grant_type=client_credentials&client_id=&client_secret=&scope=https://graph.microsoft.com/.default
Microsoft Graph (header Authorization: Bearer <access token>, JSON):
  GET  /v1.0/subscribedSkus
  POST /v1.0/users
  GET  /v1.0/users?$filter=endswith(userPrincipalName,'@example.com')&$count=true&$top=999   (header ConsistencyLevel: eventual)
  GET  /v1.0/users/{id | userPrincipalName}?$select=
  PATCH /v1.0/users/{id | userPrincipalName}
  POST /v1.0/users/{id}/assignLicense
  POST /v1.0/users/{id}/revokeSignInSessions
  GET  /v1.0/users/{id}/memberOf/microsoft.graph.directoryRole
  POST /v1.0/domains
  GET  /v1.0/domains/{id}[/verificationDnsRecords | /serviceConfigurationRecords]
  POST /v1.0/domains/{id}/verify
Controls:
  POST /sim/account                       (a new app registration: tenant, client ID, secret, licence)
  POST /sim/fault      kind=429|502|503|reset|slow [n=1]
  POST /sim/latency    d=250ms
  GET  /sim/requests
  GET  /sim/mailbox    address=
  POST /sim/domain     name=
  POST /sim/publish    name=              (the domain's MS=ms… TXT record is now in DNS)
  POST /sim/mailboxes  domain= n=
  POST /sim/seats      sku=EXCHANGESTANDARD n=
  POST /sim/proxy      address= proxy=smtp:alias@example.com
  POST /sim/role       address= role=Global Administrator
  POST /sim/permissions client_id= perms=User.ReadWrite.All,... user_admin=true|false
`
