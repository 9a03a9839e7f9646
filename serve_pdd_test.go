package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mailbot/mailbot/internal/testkit"
)

// TestServeWarnsOfTheRetiredPDDHost: serve with the PDD provider against
// the real PDD host logs at start that Yandex switched the PDD API off in
// 2023, and names its successors; against another host it does not.
func TestServeWarnsOfTheRetiredPDDHost(t *testing.T) {
	t.Parallel()
	for _, real := range []bool{true, false} {
		env, fake, _ := serveEnv(t)
		if real {
			delete(env, "PDD_BASE_URL") // the default: https://pddimp.yandex.ru
		}
		fake.Faults.RejectToken("bot", "invalid_auth") // serve stops right after its start-up checks
		var out testkit.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := run(ctx, []string{"mailbot"}, envFrom(env), strings.NewReader(""), &out, &out)
		cancel()
		if err == nil {
			t.Fatal("run = nil, want the rejected token's error")
		}
		warned := strings.Contains(out.String(), "switched the PDD API off in 2023")
		if warned != real {
			t.Errorf("real PDD host %v: warned %v; log:\n%s", real, warned, out.String())
		}
		if real && (!strings.Contains(out.String(), "Yandex 360") || !strings.Contains(out.String(), `"level":"warn"`)) {
			t.Errorf("the warning does not name Yandex 360 at level warn:\n%s", out.String())
		}
	}
}
