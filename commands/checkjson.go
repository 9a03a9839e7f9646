package commands

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/mailbot/mailbot/apiclient"
)

// appendJSON appends w as encoding/json writes it without HTML escaping
// (the payload seal signs), without reflection: every register reply
// seals one. TestWireCheckJSON holds it to encoding/json's bytes and to
// apiclient.Record's fields.
func (w wireCheck) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"d":`...)
	dst = appendJSONString(dst, w.Domain)
	if r := w.Record; r != nil {
		dst = append(dst, `,"r":{"Purpose":`...)
		dst = appendJSONString(dst, r.Purpose)
		dst = append(dst, `,"Type":`...)
		dst = appendJSONString(dst, r.Type)
		dst = append(dst, `,"Name":`...)
		dst = appendJSONString(dst, r.Name)
		dst = append(dst, `,"MX":`...)
		dst = appendMXJSON(dst, r.MX)
		dst = append(dst, `,"Value":`...)
		dst = appendJSONString(dst, r.Value)
		dst = append(dst, `,"Match":`...)
		dst = strconv.AppendInt(dst, int64(r.Match), 10)
		dst = append(dst, `,"Secret":`...)
		dst = strconv.AppendBool(dst, r.Secret)
		dst = append(dst, `,"Advice":`...)
		dst = strconv.AppendBool(dst, r.Advice)
		dst = append(dst, `,"Label":`...)
		dst = appendJSONString(dst, r.Label)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendMXJSON appends an MX record set as encoding/json writes it.
func appendMXJSON(dst []byte, set []apiclient.MXRecord) []byte {
	if set == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, mx := range set {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"Pref":`...)
		dst = strconv.AppendUint(dst, uint64(mx.Pref), 10)
		dst = append(dst, `,"Host":`...)
		dst = appendJSONString(dst, mx.Host)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendJSONString appends s quoted as encoding/json writes it without
// HTML escaping. A string of printable ASCII without a quote or a
// backslash (a domain name, a record) is written as it is; any other is
// left to encoding/json.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string: cannot fail
			return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
