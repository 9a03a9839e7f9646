package config

import "time"

// PDD is the variables of Yandex PDD (MAILBOT_PROVIDER=pdd).
type PDD struct {
	PDDToken   Secret        `envconfig:"PDD_TOKEN" scope:"serve,shell" provider:"pdd" need:"serve" desc:"value of the PddToken header (the shell uses its embedded sandbox without it)"`
	PDDBaseURL string        `envconfig:"PDD_BASE_URL" scope:"serve,shell" provider:"pdd" default:"https://pddimp.yandex.ru" desc:"PDD API base URL"`
	PDDTimeout time.Duration `envconfig:"PDD_TIMEOUT" scope:"serve,shell" deprecated:"MAILBOT_PROVIDER_TIMEOUT" desc:"deprecated: the old name of MAILBOT_PROVIDER_TIMEOUT, read when that is not set"`
}

// checks checks PDD's variables on their own.
func (p *PDD) checks(c *Config) []check {
	return []check{
		{c.nameOf(&p.PDDBaseURL), checkURL(p.PDDBaseURL)},
		{c.nameOf(&p.PDDTimeout), positiveOrUnset(p.PDDTimeout)},
	}
}
