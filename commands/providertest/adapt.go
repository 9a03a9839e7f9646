package providertest

import (
	"net/http"
	"time"
)

// sandboxOf is the shared sandbox API with the sandbox's own MailboxInfo
// type, M, of the same fields as [MailboxInfo].
type sandboxOf[M ~struct {
	Password            string
	State               string
	ForcePasswordChange bool
	UID                 string
}] interface {
	http.Handler
	InjectFault(kind string, n int) error
	SetLatency(d time.Duration)
	Requests() int
	OnRequest(fn func())
	Mailbox(address string) (M, bool)
	AddDomain(name string)
	AddMailboxes(domain string, n int)
}

// Adapt makes a [Sandbox] of a sandbox whose Mailbox returns its own
// MailboxInfo type (pddsim.MailboxInfo, …) with the fields of
// [MailboxInfo].
func Adapt[M ~struct {
	Password            string
	State               string
	ForcePasswordChange bool
	UID                 string
}](sb sandboxOf[M]) Sandbox {
	return adapted[M]{sb}
}

type adapted[M ~struct {
	Password            string
	State               string
	ForcePasswordChange bool
	UID                 string
}] struct{ sandboxOf[M] }

func (a adapted[M]) Mailbox(address string) (MailboxInfo, bool) {
	m, ok := a.sandboxOf.Mailbox(address)
	return MailboxInfo(m), ok
}
