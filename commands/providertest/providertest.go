// Package providertest is the conformance suite of [commands.Provider],
// kept beside the interface it tests as commands/storetest is beside
// commands.Store: one set of tests that every provider adapter passes
// against its own sandbox, so that the core can count on the same
// behaviour from every provider. Only tests import it, so the arrows of
// the import graph still point downwards: no package of apiclient imports
// commands.
//
// # Wiring an adapter
//
// A provider's test file (package <provider>_test, so that the adapter and
// the sandbox stay apart) calls [Run] with a [Harness]:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Harness{New: func(t *testing.T) providertest.Env {
//			sim := mysim.New()
//			key := sim.NewAccount()
//			return providertest.Env{
//				Sandbox: sandbox{sim}, // a shim where the sandbox's methods differ
//				Secrets: []string{key},
//				Connect: func(base string, valid bool, opts ...apiclient.Option) (commands.Provider, error) {
//					if !valid {
//						key = "not-" + key
//					}
//					return my.New(base, key, opts...)
//				},
//			}
//		}})
//	}
//
// Each test serves a fresh sandbox over HTTPS on loopback
// (httptest.NewTLSServer), seeds [Domain] with [Sandbox.AddDomain], and
// connects the adapter with the server's client, a short timeout and fast
// retries (3 attempts). A sandbox satisfies [Sandbox] as it is when its
// Go API follows the shared sandbox API (see [Sandbox]); where it differs
// (the Yandex 360 sandbox's seeding returns errors), a few lines of shim in
// the test file adapt it.
//
// The suite sees every request reach the sandbox (method, URI, body) and
// tells reads (GET) from writes (any other method). An operation may read
// before it writes (a Yandex 360 adapter finds the domain and then the user
// by paging), so the suite counts writes, aims its faults at the next
// write (the fault is queued as the write arrives: it meets the write and,
// for n faults, its retries), and calls a request sent twice a retry.
//
// # What the suite asserts
//
//   - Every operation: register, status, DNS, add, set password, block and
//     unblock, look up, list (every mailbox exactly once across the pages,
//     never more than the limit on a page of a provider that pages), with
//     the sandbox's own record as the oracle (the stored password, the
//     state, the force-change flag where the provider has one, the UID
//     where it has UIDs). An add sends one write ([Env.Writes] where the
//     provider needs more).
//   - ResolveMailbox of a plain mailbox is the mailbox itself (its own
//     address, UID and state; no alias, no administrator), and of an
//     address that names nothing ReasonNotFound; both only read.
//   - MailDNS returns the MX host and SPF rule beside the error when its
//     read fails (refused credentials) or is answered late (a timeout of
//     its own, apiclient.MailDNSTimeout, before the client's).
//   - Refusals: an existing mailbox is ReasonExists, an unknown one
//     ReasonNotFound, an invalid login ReasonInvalid; none is retried (at
//     most one write, no request sent twice).
//   - Faults on the write: HTTP 429 is retried after its Retry-After (the
//     gap between the two writes, timed as they arrive, is at least 1 s);
//     HTTP 502 is retried, and three of them are ClassTemporary after three
//     attempts with nothing done (ClassUncertain and not re-sent for an
//     add: a 5xx to a create may have created); a reset after the
//     operation was performed is ClassUncertain for an add (sent once) and
//     retried as it is for set-password and block (the stored password is
//     the one sent); a slow answer is a timeout, ClassUncertain.
//   - Refused credentials are ClassCredentials, each call after at most one
//     request (mailcow's adapter sends nothing after a 401).
//   - The sandbox's Requests and OnRequest count what reached it.
//   - No error text holds a credential or a password.
package providertest

import (
	"net/http"
	"testing"
	"time"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// MailboxInfo is a sandbox's record of a mailbox, the suite's oracle.
type MailboxInfo struct {
	Password            string
	State               string // "active", "blocked" or "inactive"
	ForcePasswordChange bool
	UID                 string
}

// Sandbox is the shared Go API of the provider sandboxes, as the suite
// uses it.
type Sandbox interface {
	http.Handler
	// InjectFault queues n faults, taken by the next API requests in
	// order: "429" (Retry-After: 1, nothing done), "502" (nothing done),
	// "reset" (the operation is performed, then the connection is closed
	// unanswered), "slow" (the operation is performed and the answer comes
	// after the latency plus 10 s).
	InjectFault(kind string, n int) error
	// SetLatency delays every API answer.
	SetLatency(d time.Duration)
	// Requests counts every API request on arrival, faults included.
	Requests() int
	// OnRequest calls fn on each API request's arrival (nil removes it).
	OnRequest(fn func())
	// Mailbox is the sandbox's record of address (local@domain).
	Mailbox(address string) (MailboxInfo, bool)
	// AddDomain adds a verified, ready domain to the first account.
	AddDomain(name string)
	// AddMailboxes adds user0001@domain … user<n>@domain.
	AddMailboxes(domain string, n int)
}

// Env is one fresh sandbox and the means to connect an adapter to it.
type Env struct {
	Sandbox Sandbox
	// Connect returns an adapter of the sandbox served at baseURL, with
	// the sandbox's credentials (valid) or credentials it refuses, and
	// the suite's options (its HTTP client, timeout and retry policy).
	Connect func(baseURL string, valid bool, opts ...apiclient.Option) (commands.Provider, error)
	// Secrets are the credentials Connect uses: no error may show them.
	Secrets []string
	// ActsAs is the address of the account the adapter acts as, where it
	// acts as a mailbox (Google's admin); "" where it does not.
	ActsAs string
	// Writes are how many writes an add and a block send where the
	// provider needs more than one (zero: one).
	Writes Writes
}

// Writes are the writes of an operation that takes several steps at the
// provider (Microsoft 365: a user, then its licence; accountEnabled, then
// the sessions revoked).
type Writes struct {
	Add, Block int
}

// add is the writes of an add, at least 1.
func (w Writes) add() int { return max(w.Add, 1) }

// block is the writes of a block, at least 1.
func (w Writes) block() int { return max(w.Block, 1) }

// Harness makes a fresh [Env] for each test.
type Harness struct {
	New func(t *testing.T) Env
}

// Domain is the domain every test seeds with [Sandbox.AddDomain].
const Domain = "example.com"
