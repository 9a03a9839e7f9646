package commands

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mailbot/mailbot/apiclient"

	"github.com/sethvargo/go-password/password"
	"go.uber.org/zap"
)

// shared is what every service of the core holds (each embeds a pointer
// to the one value): the providers, the store, the messenger, the
// policy's settings and the clock, and the helpers that only read them.
type shared struct {
	router  *Router // the provider of each domain
	store   Store
	msgr    Messenger
	cfg     Config
	logger  *zap.Logger
	domains []string // the allow-list, normalised
	gen     *password.Generator
	key     []byte    // signs pending requests and hand-overs
	macs    sync.Pool // of hash.Hash: HMAC-SHA256 keyed with key, reset (appendMAC)
}

// Defaults of [Config].
const (
	DefaultApprovalTTL    = 24 * time.Hour
	DefaultPasswordLength = 16
)

// New returns a core that runs operations on the provider api under cfg's policy,
// keeps requests and the audit trail in store, and answers through msgr.
// It checks cfg ([Config.Check]), so that a core never runs on a bad
// policy.
func New(api Provider, store Store, msgr Messenger, cfg Config, logger *zap.Logger) (*Core, error) {
	if api == nil {
		return nil, errors.New("commands: nil provider")
	}
	r, err := NewRouter(api)
	if err != nil {
		return nil, err
	}
	return NewRouted(r, store, msgr, cfg, logger)
}

// NewRouted is [New] with several providers: each command goes to its
// domain's provider, as router says.
func NewRouted(router *Router, store Store, msgr Messenger, cfg Config, logger *zap.Logger) (*Core, error) {
	if router == nil || store == nil || msgr == nil {
		return nil, errors.New("commands: nil router, store or messenger")
	}
	if logger == nil {
		logger = zap.NewNop()
	}
	cfg, errs := cfg.withDefaults().Check()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	domains, err := normalizePatterns(cfg.Domains)
	if err != nil {
		return nil, fmt.Errorf("commands: domains: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Mention == nil {
		cfg.Mention = func(id string) string { return id }
	}
	if cfg.MentionGroup == nil {
		cfg.MentionGroup = func(id string) string { return id }
	}
	cfg.Admins = slices.Clone(cfg.Admins)
	key := slices.Clone(cfg.SigningKey)
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // never fails (crypto/rand)
	}
	gen, err := password.NewGenerator(&password.GeneratorInput{Symbols: apiclient.PasswordSymbols})
	if err != nil {
		return nil, fmt.Errorf("commands: password generator: %w", err)
	}
	return assemble(&shared{router: router, store: store, msgr: msgr, cfg: cfg, logger: logger, domains: domains, gen: gen, key: key}), nil
}

// now is the clock, in UTC, to the millisecond (as a pending request keeps it).
func (c *shared) now() time.Time { return c.cfg.Now().UTC().Truncate(time.Millisecond) }

// newID returns a random identifier of 10 lower-case letters and digits.
func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// at is the provider of domain (normalised).
func (c *shared) at(domain string) Provider { return c.router.For(domain) }

// nameAt is the name of domain's provider.
func (c *shared) nameAt(domain string) string { return c.at(domain).Name() }

// of is the provider that does n's work: the one run chose for it, by
// name (n.Provider), else its domain's.
func (c *shared) of(n Notice) Provider {
	if p := c.router.Named(n.Provider); p != nil {
		return p
	}
	return c.at(n.Op.Domain)
}

// titleOf is the words replies use for the provider of n.
func (c *shared) titleOf(n Notice) string { return c.of(n).Capabilities().Title }

// titleAt is the words replies use for domain's provider.
func (c *shared) titleAt(domain string) string { return c.at(domain).Capabilities().Title }
