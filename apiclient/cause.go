package apiclient

// cause is a transport failure whose text is scrubbed (the HTTP client
// quotes a malformed answer's first line in its errors) and whose chain is
// kept, so that errors.Is and errors.As still see what happened: the
// context's end (context.Canceled, context.DeadlineExceeded), a TLS
// certificate that is not trusted. Only its text is for messages.
type cause struct {
	text string
	err  error
}

func newCause(text string, err error) error { return &cause{text: text, err: err} }

func (c *cause) Error() string { return c.text }
func (c *cause) Unwrap() error { return c.err }
