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
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return s == "" })
	if len(secrets) == 0 {
		return c
	}
	d := *c
	d.secrets = append(slices.Clip(c.secrets), secrets...)
	return &d
}
