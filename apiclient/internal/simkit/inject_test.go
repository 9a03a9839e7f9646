package simkit

import (
	"strings"
	"testing"
)

func TestInject(t *testing.T) {
	var q Faults[string]
	kinds := []string{"429", "502"}
	if err := Inject(&q, "testsim", kinds, "418", 1, 10); err == nil || !strings.Contains(err.Error(), `testsim: unknown fault "418" (want 429, 502)`) {
		t.Errorf("an unknown kind: %v", err)
	}
	for _, n := range []int{-1, 11} {
		if err := Inject(&q, "testsim", kinds, "429", n, 10); err == nil || !strings.Contains(err.Error(), "want 0 to 10") {
			t.Errorf("%d faults: %v", n, err)
		}
	}
	if err := Inject(&q, "testsim", kinds, "502", 2, 10); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) != 2 || q.queue[0] != "502" {
		t.Errorf("queue %v, want two 502s", q.queue)
	}
}
