package apiclient

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// StatusClass classifies an HTTP status that is not a success, for any
// provider: 401 and 403 are refused credentials, 429 is temporary, a 5xx is
// temporary except for a call that creates something (create: it may have
// been created), anything else is a refusal.
func StatusClass(status int, create bool) Class {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ClassCredentials
	case status == http.StatusTooManyRequests:
		return ClassTemporary
	case status >= 500 && create:
		return ClassUncertain
	case status >= 500:
		return ClassTemporary
	}
	return ClassRefused
}

// RetryAfter reads a Retry-After header (seconds or an HTTP date), capped
// at [MaxRetryAfter]; 0 when absent or unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxRetryAfter)
}
