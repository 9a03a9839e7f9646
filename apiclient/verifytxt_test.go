package apiclient

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// txtAccount is an account of two domains, one verified, for TXTDomains.
type txtAccount struct {
	verified map[string]bool
	reads    int
	failRead bool
}

func (a *txtAccount) domains() TXTDomains {
	return TXTDomains{
		Add: func(_ context.Context, n string) (bool, error) {
			if _, ok := a.verified[n]; ok {
				return false, &Error{Class: ClassRefused, Reason: ReasonExists}
			}
			a.verified[n] = false
			return false, nil
		},
		Get: func(_ context.Context, _ Op, n string) (*Domain, error) {
			v, ok := a.verified[n]
			if !ok {
				return nil, &Error{Class: ClassRefused, Reason: ReasonNotFound}
			}
			return TXTDomain(n, v), nil
		},
		Record: func(context.Context, Op, string) (string, error) {
			a.reads++
			if a.failRead {
				return "", errors.New("HTTP 503")
			}
			return "MS=ms12345678", nil
		},
	}
}

func TestTXTDomains(t *testing.T) {
	ctx := context.Background()
	a := &txtAccount{verified: map[string]bool{"done.example": true}}
	if d, err := a.domains().Register(ctx, "new.example"); err != nil || d.Status != StatusUnverified || d.VerifyTXT != "MS=ms12345678" {
		t.Errorf("a new domain: %+v, %v; want unverified with its record", d, err)
	}
	if d, err := a.domains().Register(ctx, "done.example"); err != nil || d.Status != StatusVerified || d.VerifyTXT != "" || a.reads != 1 {
		t.Errorf("a verified domain the account has: %+v, %v after %d record reads; want it read, verified, no record read", d, err, a.reads)
	}
	if _, err := a.domains().Status(ctx, "gone.example"); ReasonOf(err) != ReasonNotFound {
		t.Errorf("the status of an unknown domain: %v, want not found", err)
	}
	a.failRead = true
	d, err := a.domains().Status(ctx, "new.example")
	if err != nil || d.VerifyTXT != "" || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "could not be read: HTTP 503") {
		t.Errorf("a record that could not be read: %+v, %v; want a warning", d, err)
	}
}
