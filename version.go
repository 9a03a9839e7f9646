package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped at build time:
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234"
var (
	version = ""
	commit  = ""
)

// versionLine is `mailbot version`: "mailbot <version> (<commit>, <go version>)".
func versionLine() string {
	v, c := version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && c == "" && len(s.Value) >= 7 {
				c = s.Value[:7]
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("mailbot %s (%s, %s)", v, c, runtime.Version())
}
