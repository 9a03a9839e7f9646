package config

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/mailbot/mailbot/apiclient"
	"github.com/mailbot/mailbot/commands"
)

// configVar is one field of config as its tags describe it.
type configVar struct {
	name, def, desc string
	scope, need     []string // nil scope: every subcommand that reads configuration
	provider        string   // empty: whichever provider is selected
	keepEmpty       bool
	renamedTo       string // a deprecated variable's new name
	secret          bool   // may come from the file named by fileVar
	index           []int  // of the field in config (reflect.Value.FieldByIndex)
}

// usedBy reports whether subcommand sub reads the variable when the
// providers selected are in use.
func (v configVar) usedBy(sub string, selected []string) bool {
	return (v.scope == nil || slices.Contains(v.scope, sub)) && (v.provider == "" || slices.Contains(selected, v.provider))
}

// envVars lists the variables of Config, read once from its tags.
var envVars = sync.OnceValue(readVars)

// readVars lists the variables of config in the order of its fields.
// Reading tags is plain reflect.Type work, which leaves the linker's
// dead-code elimination on (unlike reflect.Value.MethodByName).
func readVars() []configVar {
	typ := reflect.TypeFor[Config]()
	vars := make([]configVar, 0, typ.NumField())
	for _, f := range reflect.VisibleFields(typ) {
		name := f.Tag.Get("envconfig")
		if name == "" {
			continue
		}
		vars = append(vars, configVar{
			name: name, def: f.Tag.Get("default"), desc: f.Tag.Get("desc"),
			scope: splitList(f.Tag.Get("scope")), need: splitList(f.Tag.Get("need")),
			provider: f.Tag.Get("provider"), keepEmpty: f.Tag.Get("empty") == "keep", renamedTo: f.Tag.Get("deprecated"),
			secret: f.Type.Implements(reflect.TypeFor[revealer]()), index: f.Index,
		})
	}
	return vars
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// descLimits fills the limits the descriptions name.
var descLimits = strings.NewReplacer(
	"{approvals.max}", strconv.Itoa(commands.MaxApprovalsRequired),
	"{password.min}", strconv.Itoa(apiclient.MinPasswordLen),
	"{password.max}", strconv.Itoa(apiclient.MaxPasswordLen),
)

// WriteVars writes every variable with its default and meaning, a line
// each, as `mailbot help` lists them; providers are the rows of
// MAILBOT_PROVIDER's values, the default first.
func WriteVars(w io.Writer, providers []Provider) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  VARIABLE\tDEFAULT\tMEANING")
	choices := strings.NewReplacer("{providers}", OrList(names(providers)))
	for _, v := range envVars() {
		def, meaning := v.def, choices.Replace(descLimits.Replace(v.desc))
		if v.name == "MAILBOT_PROVIDER" && len(providers) > 0 {
			def = providers[0].Name
		}
		if def == "" {
			def = "-"
		}
		if v.provider != "" {
			meaning += " (MAILBOT_PROVIDER=" + v.provider + " only)"
		}
		if len(v.need) > 0 {
			meaning += " (required by " + strings.Join(v.need, ", ") + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", v.name, def, meaning)
		if v.secret {
			fmt.Fprintf(tw, "  %s\t-\ta file holding %s instead (trailing white space dropped); set one of the two\n", v.fileVar(), v.name)
		}
	}
	_ = tw.Flush() // errors are w's, and the caller's to see
}

// nameOf is the variable of the field of c that ptr points to.
func (c *Config) nameOf(ptr any) string {
	name, ok := varAt()[reflect.ValueOf(ptr).Pointer()-reflect.ValueOf(c).Pointer()]
	if !ok {
		panic("config: not a variable's field")
	}
	if old := c.readFrom[name]; old != "" {
		return old
	}
	return name
}

// varAt names each variable by its field's offset in a Config.
var varAt = sync.OnceValue(func() map[uintptr]string {
	typ := reflect.TypeFor[Config]()
	at := make(map[uintptr]string, len(envVars()))
	for _, v := range envVars() {
		var off uintptr
		for i := range v.index {
			off += typ.FieldByIndex(v.index[:i+1]).Offset
		}
		at[off] = v.name
	}
	return at
})

// settingVar is the variable that sets the core's setting s (its core
// tag).
func settingVar(s commands.Setting) string {
	typ := reflect.TypeFor[Config]()
	for _, v := range envVars() {
		if typ.FieldByIndex(v.index).Tag.Get("core") == string(s) {
			return v.name
		}
	}
	return string(s)
}

// OrList is words as "a, b or c".
func OrList(words []string) string { return joinList(words, " or ") }

// AndList is words as "a, b and c".
func AndList(words []string) string { return joinList(words, " and ") }

// joinList is words joined by commas, the last by last.
func joinList(words []string, last string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + last + words[len(words)-1]
}
