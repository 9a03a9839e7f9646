package commands

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"strings"
	"sync"
)

// sealBuf is seal's scratch: the payload's JSON and the sealed value
// being built. Reused through sealBufs, so that a seal allocates the
// returned string and little else.
type sealBuf struct {
	json bytes.Buffer
	enc  *json.Encoder
	out  []byte
	sum  [sha256.Size]byte
}

// maxKeptSeal bounds the scratch kept for reuse: a value longer than
// this is rare (a pending request's is at most MaxEncodedPending).
const maxKeptSeal = 4 << 10

var sealBufs = sync.Pool{New: func() any {
	b := new(sealBuf)
	b.enc = json.NewEncoder(&b.json)
	b.enc.SetEscapeHTML(false)
	return b
}}

// seal returns v as "<kind>.<payload>.<HMAC-SHA256>", both base64url: a
// value that travels through Slack (a button's value, a modal's
// private_metadata) and comes back only if nobody changed it. The
// payload is v's JSON without HTML escaping and without the encoder's
// newline; the MAC is over "<kind>.<payload>".
func (c *shared) seal(kind string, v any) string {
	b := sealBufs.Get().(*sealBuf)
	b.json.Reset()
	_ = b.enc.Encode(v) // plain structs of strings and numbers: cannot fail
	return c.sealed(b, kind, bytes.TrimSpace(b.json.Bytes()))
}

// sealCheck is seal(checkKind, w), its JSON written out without
// reflection: every register reply has a "Check DNS" button.
func (c *shared) sealCheck(w wireCheck) string {
	b := sealBufs.Get().(*sealBuf)
	b.json.Reset()
	b.json.Write(w.appendJSON(b.json.AvailableBuffer()))
	return c.sealed(b, checkKind, b.json.Bytes())
}

// sealed is "<kind>.<payload>.<MAC>" (seal), built in b, which it
// returns to sealBufs.
func (c *shared) sealed(b *sealBuf, kind string, payload []byte) string {
	out := append(b.out[:0], kind...)
	out = append(out, '.')
	out = b64.AppendEncode(out, payload)
	mac := c.appendMAC(b.sum[:0], out)
	out = append(out, '.')
	out = b64.AppendEncode(out, mac)
	s := string(out)
	if cap(out) <= maxKeptSeal && b.json.Cap() <= maxKeptSeal {
		b.out = out
		sealBufs.Put(b)
	}
	return s
}

// unseal checks the signature of s, made by seal with kind, and decodes
// its payload into v, refusing unknown fields.
func (c *shared) unseal(kind, s string, v any) error {
	i := strings.LastIndexByte(s, '.')
	if len(s) > MaxEncodedPending || i < 0 || !strings.HasPrefix(s, kind+".") {
		return ErrBadPending
	}
	head, sig := s[:i], s[i+1:]
	got, err := b64.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.sign(head)) {
		return ErrBadPending
	}
	raw, err := b64.DecodeString(head[len(kind)+1:])
	if err != nil {
		return ErrBadPending
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return ErrBadPending
	}
	return nil
}

// sign is the HMAC-SHA256 of head under the core's key.
func (c *shared) sign(head string) []byte { return c.appendMAC(nil, []byte(head)) }

// appendMAC appends the HMAC-SHA256 of head under the core's key to dst.
// The keyed hashes are reused: Reset returns one to its keyed state.
func (c *shared) appendMAC(dst, head []byte) []byte {
	m, _ := c.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, c.key)
	}
	m.Write(head)
	dst = m.Sum(dst)
	m.Reset()
	c.macs.Put(m)
	return dst
}
