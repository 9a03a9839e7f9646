package apiclient

import "slices"

// WithSecrets returns a caller of the same provider, client and settings
// that also keeps secrets, a call's own (the password an add or a
// set-password sends), out of every text it builds: the errors of
// [Caller.Exchange] and [Caller.Fail], and what [Caller.Secrets] returns
// for an adapter's own excerpts. A provider's error answer may repeat the
// request, password included; an adapter sends a call that carries a
// secret through the caller this returns, so that no error of it can show
// the secret. Empty secrets are left out; without any, it returns c.
func (c *Caller) WithSecrets(secrets ...string) *Caller {
	kept := 0
	for _, s := range secrets {
		if s != "" {
			kept++
		}
	}
	if kept == 0 {
		return c
	}
	d := *c
	d.secrets = slices.Grow(slices.Clip(c.secrets), kept) // one allocation: callers make one a request
	for _, s := range secrets {
		if s != "" {
			d.secrets = append(d.secrets, s)
		}
	}
	return &d
}
