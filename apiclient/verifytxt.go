package apiclient

// The states of a domain whose owner proves it with a TXT record that the
// provider gives, as Domain.Status holds them.
const (
	StatusVerified   = "verified"
	StatusUnverified = "unverified"
)

// TXTDomain is the Domain name, verified or not, at a provider whose
// domains are proved by a TXT record.
func TXTDomain(name string, verified bool) *Domain {
	d := &Domain{Name: name, Status: StatusUnverified, Verified: verified}
	if verified {
		d.Status = StatusVerified
	}
	return d
}

// WithVerifyTXT gives an unverified d the TXT record that read returns, or
// a warning when it cannot be read; a verified d needs none and read is
// not called.
func WithVerifyTXT(d *Domain, read func() (string, error)) *Domain {
	if d.Verified {
		return d
	}
	txt, err := read()
	if err != nil {
		d.Warnings = append(d.Warnings, "the domain was added; its verification record could not be read: "+err.Error())
		return d
	}
	d.VerifyTXT = txt
	return d
}
