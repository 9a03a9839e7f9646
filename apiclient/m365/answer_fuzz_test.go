package m365

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
)

// FuzzParseError: whatever an error answer holds, its parse never panics,
// stays within the lengths an error shows, never shows a secret the
// caller knows, and classifies to a class (uncertain only for a create).
func FuzzParseError(f *testing.F) {
	f.Add(400, `{"error":{"code":"Request_BadRequest","message":"Another object with the same value for property userPrincipalName already exists.","details":[{"code":"ObjectConflict","target":"userPrincipalName"}]}}`)
	f.Add(403, `{"error":{"code":"Authorization_RequestDenied","message":"Insufficient privileges to complete the operation."}}`)
	f.Add(502, "<html><body>502 Bad Gateway</body></html>")
	f.Add(400, `{"error":{"code":"Request_BadRequest","message":"password sbx8Q~secret-value refused"}}`)
	const secret = "sbx8Q~secret-value"
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			return
		}
		a := ParseError(status, []byte(body), []string{secret})
		if strings.Contains(a.Message, secret) || strings.Contains(a.Code, secret) {
			t.Errorf("the parse shows the secret: %q, %q", a.Message, a.Code)
		}
		if utf8.RuneCountInString(a.Message) > apiclient.MaxCodeLen+1 || utf8.RuneCountInString(a.Code) > apiclient.MaxCodeLen {
			t.Errorf("too long: %d, %d characters", utf8.RuneCountInString(a.Message), utf8.RuneCountInString(a.Code))
		}
		for _, create := range []bool{false, true} {
			class, _ := classify(status, a, create)
			if class < apiclient.ClassRefused || class > apiclient.ClassUncertain || class == apiclient.ClassUncertain && !create {
				t.Errorf("status %d code %q create %v: class %v", status, a.Code, create, class)
			}
		}
	})
}

// FuzzSkipToken: the cursor read from any next link is the link's own
// $skiptoken, never anything else of it.
func FuzzSkipToken(f *testing.F) {
	f.Add("https://graph.microsoft.com/v1.0/users?$count=true&$skiptoken=RFNwdAIAAQAAA")
	f.Add("https://graph.microsoft.com/v1.0/users?$skiptoken=a%26b&$top=999")
	f.Add("::not a url")
	f.Fuzz(func(t *testing.T, link string) {
		tok := SkipToken(link)
		u, err := url.Parse(link)
		if err != nil && tok != "" {
			t.Errorf("a link that does not parse gave %q", tok)
		}
		if err == nil && tok != u.Query().Get("$skiptoken") {
			t.Errorf("%q: token %q", link, tok)
		}
	})
}
