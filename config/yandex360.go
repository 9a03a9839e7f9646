package config

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// Yandex360 is the variables of Yandex 360 (MAILBOT_PROVIDER=yandex360).
type Yandex360 struct {
	Y360Token        Secret `envconfig:"Y360_TOKEN" scope:"serve,shell" provider:"yandex360" need:"serve" desc:"Yandex 360 OAuth token (the shell uses its embedded sandbox without it)"`
	Y360OrgID        string `envconfig:"Y360_ORG_ID" scope:"serve,shell" provider:"yandex360" desc:"Yandex 360 organisation ID; empty: the one organisation the token sees"`
	Y360BaseURL      string `envconfig:"Y360_BASE_URL" scope:"serve,shell" provider:"yandex360" default:"https://api360.yandex.net" desc:"Yandex 360 API base URL"`
	Y360DepartmentID int    `envconfig:"Y360_DEPARTMENT_ID" scope:"serve,shell" provider:"yandex360" default:"1" desc:"Yandex 360 department of new users"`
}

// checks checks Yandex 360's variables on their own.
func (y *Yandex360) checks(c *Config) []check {
	return []check{
		{c.nameOf(&y.Y360Token), checkBareToken(y.Y360Token)},
		{c.nameOf(&y.Y360OrgID), checkOrgID(y.Y360OrgID)},
		{c.nameOf(&y.Y360BaseURL), checkURL(y.Y360BaseURL)},
		{c.nameOf(&y.Y360DepartmentID), commands.CheckRange(y.Y360DepartmentID, 1, math.MaxInt32)},
	}
}

// checkOrgID checks Y360_ORG_ID: empty, or a positive whole number.
func checkOrgID(id string) error {
	if id == "" {
		return nil
	}
	if n, err := strconv.ParseUint(id, 10, 63); err != nil || n == 0 {
		return fmt.Errorf("%q is not an organisation ID (a positive whole number)", textcut.Runes(id, 40))
	}
	return nil
}
