package apiclient_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mailbot/mailbot/apiclient"
)

// TestBearerCallWithoutToken: a token source that answers an empty token
// fails the call as temporary before anything is sent.
func TestBearerCallWithoutToken(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
	t.Cleanup(ts.Close)
	c, err := apiclient.NewCaller("test", ts.URL, nil, apiclient.WithRetry(apiclient.RetryPolicy{Attempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	err = c.BearerCall(t.Context(), apiclient.JSONCall{Op: apiclient.OpList, Method: http.MethodGet, Path: "x"}, nil,
		func(apiclient.Op) (string, error) { return "", nil },
		func(*apiclient.Caller, *apiclient.Response) error { return nil })
	if apiclient.ClassOf(err) != apiclient.ClassTemporary || sent.Load() != 0 {
		t.Errorf("BearerCall with an empty token = %v after %d requests, want a temporary failure and none sent", err, sent.Load())
	}
}
