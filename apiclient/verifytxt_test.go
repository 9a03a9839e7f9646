package apiclient

import (
	"errors"
	"strings"
	"testing"
)

func TestWithVerifyTXT(t *testing.T) {
	calls := 0
	read := func() (string, error) { calls++; return "MS=ms12345678", nil }
	if d := WithVerifyTXT(TXTDomain("a.example", true), read); d.VerifyTXT != "" || calls != 0 || d.Status != StatusVerified {
		t.Errorf("a verified domain: %+v after %d reads, want no record and no read", d, calls)
	}
	if d := WithVerifyTXT(TXTDomain("b.example", false), read); d.VerifyTXT != "MS=ms12345678" || d.Status != StatusUnverified {
		t.Errorf("an unverified domain: %+v, want its record", d)
	}
	failed := WithVerifyTXT(TXTDomain("c.example", false), func() (string, error) { return "", errors.New("HTTP 503") })
	if failed.VerifyTXT != "" || len(failed.Warnings) != 1 || !strings.Contains(failed.Warnings[0], "could not be read: HTTP 503") {
		t.Errorf("a record that could not be read: %+v, want a warning", failed)
	}
}
