package apiclient

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// CheckURL parses raw and requires https, or http to a loopback host. Its
// errors show the URL without user information, query or fragment, which
// may hold a secret, and do not show a value that does not parse.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("the value is not a URL")
	}
	shown := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	switch {
	case u.Host == "":
		return nil, fmt.Errorf("%q is not an absolute URL", shown)
	case u.User != nil:
		return nil, fmt.Errorf("%q: a base URL has no user information", shown)
	case u.Scheme == "https":
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("%q: the scheme must be https (http only to a loopback host)", shown)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("%q: a base URL has no query or fragment", shown)
	}
	return u, nil
}

// IsLoopback reports whether host is localhost or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
