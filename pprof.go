//go:build pprof

package main

import (
	"net/http"
	"net/http/pprof"
	"runtime"
)

// A binary built with -tags pprof (BenchmarkRelease does, when
// MAILBOT_BENCH_PROFILE names a directory) serves Go's profiles under
// /debug/pprof/ on the health listener. The release binary has none of it.
// Allocations are sampled every 4 KiB instead of 512 KiB, so that the
// idle heap (about 2 MiB) shows function by function.
func init() {
	runtime.MemProfileRate = 4096
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	debugRoutes = mux
}
