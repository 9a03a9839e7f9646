package pdd_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/apiclient/pdd/pddsim"
)

var hex12 = regexp.MustCompile(`^[0-9a-f]{12}$`)

// TestRegisterDomain checks every success shape of register, over HTTP and
// HTTPS: a register of a domain verified already says it existed.
func TestRegisterDomain(t *testing.T) {
	t.Parallel()
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			e := setup(t, tr.tls)
			ctx := t.Context()

			first, err := e.c.RegisterDomain(ctx, "new.example")
			if err != nil {
				t.Fatalf("RegisterDomain(new.example) = %v", err)
			}
			want := &apiclient.Domain{Name: "new.example", Status: string(pddsim.StatusDomainActivate), Stage: "owner-check",
				Meaning: "the domain has been added, but its ownership is not verified yet"}
			if diff := cmp.Diff(want, first, cmpopts.IgnoreFields(apiclient.Domain{}, "Secrets")); diff != "" {
				t.Errorf("first registration (-want +got):\n%s", diff)
			}
			if first.Secrets == nil || !hex12.MatchString(first.Secrets.Name) || !hex12.MatchString(first.Secrets.Content) {
				t.Fatalf("first registration: Secrets = %+v, want name and content of 12 hex characters", first.Secrets)
			}

			again, err := e.c.RegisterDomain(ctx, "NEW.example.")
			if err != nil {
				t.Fatalf("RegisterDomain(NEW.example.) = %v", err)
			}
			if diff := cmp.Diff(first, again); diff != "" {
				t.Errorf("registering again (-first +again):\n%s", diff)
			}

			for _, tc := range []struct {
				status  pddsim.Status
				stage   string
				meaning string
				flows   bool
			}{
				{pddsim.StatusMXActivate, "mx-check", "the domain is verified, but its MX record is not set up, so mail does not flow yet", false},
				{pddsim.StatusAdded, "added", "the domain is verified and its MX record is set up: mail flows", true},
			} {
				if err := e.sim.SetStatus("new.example", tc.status); err != nil {
					t.Fatal(err)
				}
				got, err := e.c.RegisterDomain(ctx, "new.example")
				want := &apiclient.Domain{Name: "new.example", Status: string(tc.status), Stage: tc.stage, Verified: true,
					Meaning: tc.meaning, MailFlows: tc.flows, Existed: true}
				if err != nil || !cmp.Equal(want, got) {
					t.Errorf("RegisterDomain at %s = %+v, %v; want %+v", tc.status, got, err, want)
				}
			}
		})
	}
}
