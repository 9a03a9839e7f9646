package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkBolt runs the release benchmark's burst, measured the same way,
// against the Bolt yardstick of docs/performance.md: testdata/bolt, the
// floor's job (ack, register at the PDD sandbox over HTTPS, post the answer
// to response_url and a line to the ops channel) written as a Bolt for
// JavaScript Socket Mode app. mailbot's ack p99 is held to a tenth of its
// ack-p99-ms. Sub-benchmarks: "inline", each command's work in its handler
// right after the ack (as Bolt's documentation writes it), and "workers=8",
// at most eight commands at work at once, as in the floor. A Node.js app is
// no Go binary with Go's runtime counters: it reports no alloc-KiB/cmd, GCs
// or binary-MB.
//
// It needs Node.js and npm, and installs the app's locked packages
// (package-lock.json) from the npm registry once, into the user's cache
// directory; without node or npm it skips, saying so.
//
//	go test -run XXX -bench Bolt -benchtime 1x .
func BenchmarkBolt(b *testing.B) {
	bin := boltApp(b)
	for _, tc := range []struct{ name, workers string }{{"inline", "0"}, {"workers=8", "8"}} {
		b.Run(tc.name, func(b *testing.B) {
			benchBursts(b, bin, benchProviders[0], func() map[string]string { return map[string]string{"BOLT_WORKERS": tc.workers} })
		})
	}
}

// boltApp installs testdata/bolt into the cache (once per package-lock.json)
// and returns a start script that runs it as startRelease runs mailbot:
// `<script> serve`, with the process's own pid (exec), trusting the
// sandbox's authority of SSL_CERT_FILE.
func boltApp(b *testing.B) string {
	b.Helper()
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err := errors.Join(err1, err2); err != nil {
		b.Skipf("the Bolt yardstick needs Node.js and npm: %v", err)
	}
	lock, err := os.ReadFile(filepath.Join("testdata", "bolt", "package-lock.json"))
	if err != nil {
		b.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(lock)
	dir := filepath.Join(cache, "mailbot-bench", "bolt-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{"package.json", "package-lock.json", "app.js"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "bolt", f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), raw, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@slack", "bolt", "package.json")); err != nil {
		cmd := exec.Command(npm, "ci", "--omit=dev", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	script := filepath.Join(b.TempDir(), "bolt")
	body := "#!/bin/sh\nNODE_EXTRA_CA_CERTS=\"$SSL_CERT_FILE\" exec " + node + " " + filepath.Join(dir, "app.js") + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		b.Fatal(err)
	}
	return script
}
