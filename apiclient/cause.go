package apiclient

import (
	"context"
	"errors"
)

// cause is the scrubbed text of a transport failure that still tells
// errors.Is that the context ended (context.Canceled or
// context.DeadlineExceeded), so that a caller can tell its own
// cancellation from a failure, without keeping the unscrubbed error.
type cause struct {
	text   string
	ctxErr error // context.Canceled, context.DeadlineExceeded or nil
}

func newCause(text string, err error) error {
	c := &cause{text: text}
	for _, ctxErr := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, ctxErr) {
			c.ctxErr = ctxErr
		}
	}
	return c
}

func (c *cause) Error() string { return c.text }
func (c *cause) Unwrap() error { return c.ctxErr }
