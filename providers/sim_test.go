package providers

import (
	"net"
	"testing"
)

func TestURLHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr net.TCPAddr
		want string
	}{
		{net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8081}, "127.0.0.1:8081"},
		{net.TCPAddr{IP: net.IPv4zero, Port: 8081}, "127.0.0.1:8081"},
		{net.TCPAddr{IP: net.IPv6unspecified, Port: 8081}, "127.0.0.1:8081"},
		{net.TCPAddr{Port: 8081}, "127.0.0.1:8081"},
		{net.TCPAddr{IP: net.IPv6loopback, Port: 1}, "[::1]:1"},
		{net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 443}, "192.0.2.7:443"},
	}
	for _, tc := range tests {
		if got := urlHost(&tc.addr); got != tc.want {
			t.Errorf("urlHost(%v) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}
