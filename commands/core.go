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

// Core is the transport-free core. It is safe for concurrent use.
type Core struct {
	api     Provider
	store   Store
	msgr    Messenger
	cfg     Config
	logger  *zap.Logger
	domains []string // the allow-list, normalised
	gen     *password.Generator
	key     []byte // signs pending requests

	mu         sync.Mutex
	unfinished map[string]unfinished // ends of runs the store did not take, by request ID
	unattached map[string]MessageRef // request messages the store did not take, by request ID
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
	if api == nil || store == nil || msgr == nil {
		return nil, errors.New("commands: nil provider, store or messenger")
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
	return &Core{api: api, store: store, msgr: msgr, cfg: cfg, logger: logger, domains: domains, gen: gen, key: key,
		unfinished: map[string]unfinished{}, unattached: map[string]MessageRef{}}, nil
}

// now is the clock, in UTC, to the millisecond (as a pending request keeps it).
func (c *Core) now() time.Time { return c.cfg.Now().UTC().Truncate(time.Millisecond) }

// newID returns a random identifier of 10 lower-case letters and digits.
func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}
