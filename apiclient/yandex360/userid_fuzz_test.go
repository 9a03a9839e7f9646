package yandex360

import (
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzUserID checks that a user ID is taken only as a 64-bit number, from
// a JSON string or a JSON number, digit for digit.
func FuzzUserID(f *testing.F) {
	for _, s := range []string{`"1130000061922106"`, `9007199254740993`, `"18446744073709551616"`, `1.5e3`, `"-1"`, `null`, `"12"3"`, `"\u0031"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var u struct {
			ID userID `json:"id"`
		}
		err := json.Unmarshal([]byte(`{"id":`+raw+`}`), &u)
		if err != nil {
			return
		}
		if u.ID == "" && raw == "null" {
			return
		}
		if _, perr := strconv.ParseUint(string(u.ID), 10, 64); perr != nil {
			t.Errorf("%s gave the ID %q", raw, u.ID)
		}
	})
}
