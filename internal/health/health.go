// Package health holds what the health and metrics listener of `mailbot
// serve` (MAILBOT_HTTP_ADDR; see docs/operations.md) and the deployment
// manifests must agree on: the paths it serves, and how long its graceful
// stop may take. The listener itself is package main's; the Kubernetes
// Deployment probes the first two paths, annotates the third for
// Prometheus, and gives the pod a termination grace period that covers the
// stop. The manifests' tests (package manifests) read these values, and the
// listener's tests check that it serves them.
package health

import "time"

// The paths of the listener.
const (
	HealthzPath = "/healthz" // liveness: 200 while the process lives
	ReadyzPath  = "/readyz"  // readiness: 200 while connected, 503 otherwise
	MetricsPath = "/metrics" // the Prometheus text format
)

// ShutdownTimeout bounds the graceful stop of the listener. Its requests
// are short, so this is generous.
const ShutdownTimeout = 5 * time.Second
