package apiclient

import "context"

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

// TXTDomains is the register and status of a provider whose domains are
// proved by a TXT record it gives (Domain.VerifyTXT), in the calls of its
// adapter. Names are the adapter's checked domain names.
type TXTDomains struct {
	// Add adds the domain to the account and says whether it is verified
	// already; a domain the account has is a refusal of ReasonExists.
	Add func(ctx context.Context, name string) (verified bool, err error)
	// Get reads the domain.
	Get func(ctx context.Context, op Op, name string) (*Domain, error)
	// Record reads the TXT record an unverified domain must publish.
	Record func(ctx context.Context, op Op, name string) (string, error)
}

// Register adds the domain and gives an unverified one its TXT record. A
// domain the account has already is read, not refused. When the record
// cannot be read after the domain was added, the result says so in a
// warning.
func (t TXTDomains) Register(ctx context.Context, name string) (*Domain, error) {
	verified, err := t.Add(ctx, name)
	if ReasonOf(err) == ReasonExists {
		if d, gerr := t.Get(ctx, OpRegister, name); gerr == nil {
			return t.withRecord(ctx, OpRegister, d), nil // the account's already
		}
	}
	if err != nil {
		return nil, err
	}
	return t.withRecord(ctx, OpRegister, TXTDomain(name, verified)), nil
}

// Status reads the domain: verified or not, and for an unverified one the
// TXT record to publish.
func (t TXTDomains) Status(ctx context.Context, name string) (*Domain, error) {
	d, err := t.Get(ctx, OpDomainStatus, name)
	if err != nil {
		return nil, err
	}
	return t.withRecord(ctx, OpDomainStatus, d), nil
}

// withRecord gives an unverified d its TXT record, or a warning when it
// cannot be read; a verified d needs none and nothing is read.
func (t TXTDomains) withRecord(ctx context.Context, op Op, d *Domain) *Domain {
	if d.Verified {
		return d
	}
	txt, err := t.Record(ctx, op, d.Name)
	if err != nil {
		d.Warnings = append(d.Warnings, "the domain was added; its verification record could not be read: "+err.Error())
		return d
	}
	d.VerifyTXT = txt
	return d
}
