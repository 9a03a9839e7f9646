package pdd

import "strings"

// scanner is an answer type that reads the shape most answers of its kind
// have without encoding/json's reflection (decode tries it first).
type scanner interface {
	// scan reads body into the zero answer and reports whether it did;
	// if not, the answer is left zero, for encoding/json to read.
	scan(body []byte) bool
}

// scan reads the answer of domain/register and
// domain/registration_status when it is one flat object (plainObject),
// the secrets an object of their own; what it reads is what
// encoding/json reads (FuzzScanDomainAnswer).
func (r *domainAnswer) scan(body []byte) bool {
	p := plainObject{s: string(body)} // one copy, which every field shares
	ok := p.object(func(key string) bool {
		if strings.EqualFold(key, "secrets") {
			if r.Secrets == nil {
				r.Secrets = new(Secrets)
			}
			return p.object(func(key string) bool {
				return p.member(key, []string{"name", "content"}, &r.Secrets.Name, &r.Secrets.Content)
			})
		}
		return p.member(key, []string{"success", "error", "domain", "status", "stage"},
			&r.Success, &r.Error, &r.Domain, &r.Status, &r.Stage)
	})
	if !ok || !p.end() {
		*r = domainAnswer{}
		return false
	}
	return true
}

// plainObject reads a JSON object whose keys and values are strings of
// printable ASCII without escapes (or objects of them, where its caller
// expects one), the shape of an answer of the PDD API, and refuses
// anything else: another kind of value, an escape, any other character in
// a string, text after the object. Keys match fields as encoding/json
// matches them: the exact name or, failing that, the name in another
// letter case (the keys are ASCII); the last member of a field wins.
type plainObject struct {
	s string
	i int
}

// member reads the value of key, a string, into the field that names[i]
// names, or skips it when no field has that name.
func (p *plainObject) member(key string, names []string, fields ...*string) bool {
	v, ok := p.str()
	if !ok {
		return false
	}
	for i, name := range names {
		if strings.EqualFold(key, name) {
			*fields[i] = v
			break
		}
	}
	return true
}

// object reads an object, calling member with each key to read its value.
func (p *plainObject) object(member func(key string) bool) bool {
	if !p.next('{') {
		return false
	}
	if p.next('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.next(':') || !member(key) {
			return false
		}
		if p.next('}') {
			return true
		}
		if !p.next(',') {
			return false
		}
	}
}

// str reads a string of printable ASCII without escapes.
func (p *plainObject) str() (string, bool) {
	if !p.next('"') {
		return "", false
	}
	for j := p.i; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c == '"':
			v := p.s[p.i:j]
			p.i = j + 1
			return v, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", false
		}
	}
	return "", false
}

// next reads c after any whitespace.
func (p *plainObject) next(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether nothing but whitespace is left.
func (p *plainObject) end() bool {
	p.space()
	return p.i == len(p.s)
}

func (p *plainObject) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}
