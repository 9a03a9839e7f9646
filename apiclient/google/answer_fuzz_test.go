package google

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
)

// FuzzParseError: whatever an error answer holds, its parse never panics,
// stays within the lengths an error shows, never shows a secret the
// caller knows, and classifies to a class.
func FuzzParseError(f *testing.F) {
	f.Add(409, `{"error":{"code":409,"message":"Entity already exists.","errors":[{"message":"Entity already exists.","domain":"global","reason":"duplicate"}]}}`)
	f.Add(403, `{"error":{"code":403,"message":"User Rate Limit Exceeded","errors":[{"reason":"userRateLimitExceeded"}]}}`)
	f.Add(502, "<html><body>502 Bad Gateway</body></html>")
	f.Add(400, `{"error":{"code":400,"message":"Invalid Password ya29.secret-token","errors":[]}}`)
	f.Add(403, `{"error":{"code":403,"message":"Admin SDK API has not been used in project 1 before or it is disabled.","errors":[{"reason":"accessNotConfigured"}],"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","metadata":{"service":"admin.googleapis.com ya29.secret-token"}}]}}`)
	f.Add(403, `{"error":{"code":403,"message":"Domain cannot use apis.","errors":[{"reason":"domainCannotUseApis"}]}}`)
	const secret = "ya29.secret-token"
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			return
		}
		a := parseError(status, []byte(body), []string{secret})
		if strings.Contains(a.message, secret) || strings.Contains(a.reason, secret) || strings.Contains(a.service, secret) {
			t.Errorf("the parse shows the secret: %q, %q, %q", a.message, a.reason, a.service)
		}
		if utf8.RuneCountInString(a.message) > apiclient.MaxCodeLen+1 || utf8.RuneCountInString(a.reason) > apiclient.MaxCodeLen {
			t.Errorf("too long: %d, %d characters", utf8.RuneCountInString(a.message), utf8.RuneCountInString(a.reason))
		}
		for _, create := range []bool{false, true} {
			for _, fresh := range []freshness{{}, {attempted: true}, {attempted: true, confirmed: true}} {
				v := classify(status, a.reason, create, fresh)
				if v.class < apiclient.ClassRefused || v.class > apiclient.ClassUncertain {
					t.Errorf("status %d reason %q: no class", status, a.reason)
				}
				if v.class == apiclient.ClassUncertain && !create {
					t.Errorf("status %d: uncertain for a call that creates nothing", status)
				}
			}
		}
	})
}
