package m365_test

import (
	"fmt"
	"testing"
)

// BenchmarkRegisterDomain is one register (POST /domains, then the
// verification record) of a new domain at the sandbox over HTTPS on
// loopback, the connection kept alive and the token fetched once; the
// client and the sandbox share the process, so its allocations are both
// sides' (a CPU or memory profile that ignores net/http.(*conn).serve
// shows the client's alone). It reports the token requests of the run,
// which must stay at 1.
func BenchmarkRegisterDomain(b *testing.B) {
	w := newWorld(b)
	c := w.client(b, nil)
	ctx := b.Context()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		d, err := c.RegisterDomain(ctx, fmt.Sprintf("d%d.example", i))
		if err != nil || d.VerifyTXT == "" {
			b.Fatalf("register: %+v, %v", d, err)
		}
	}
	b.ReportMetric(float64(w.sim.TokenRequests()), "token-requests/run")
}
