package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"
	"github.com/mailbot/mailbot/internal/textcut"
)

// fileSources holds, by Secret variable, the path of the file its value
// came from (its _FILE variant named it). The zero value, nil, is no
// file.
type fileSources map[string]string

// attributed is e, or, when e is about the value of a Secret that came
// from a file, e naming the _FILE variable and the file: the operator
// set that variable, not the secret's own.
func (src fileSources) attributed(e *Error) *Error {
	path, ok := src[e.Var]
	if !ok {
		return e
	}
	return &Error{Var: e.Var + "_FILE", Reason: "the file " + path + ": " + e.Reason}
}

// variable names the variable the operator set for the variable name: its
// _FILE variant when the value came from a file, name itself otherwise.
func (src fileSources) variable(name string) string {
	if _, ok := src[name]; ok {
		return name + "_FILE"
	}
	return name
}

// envLookup trims the values of lookup and reports a set but empty
// variable as unset, so that it takes its default, unless it is tagged
// empty:"keep".
func envLookup(lookup func(string) (string, bool), vars []configVar) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := lookup(name)
		v = strings.TrimSpace(v)
		if ok && v == "" {
			i := slices.IndexFunc(vars, func(cv configVar) bool { return cv.name == name })
			ok = i >= 0 && vars[i].keepEmpty
		}
		return v, ok
	}
}

// decodeEnv decodes each variable of vars that lookup holds, or its
// default, into its field of c. A value that does not decode is recorded
// in bad, by variable, and the field takes its default. files is where
// the secrets read from files came from.
func decodeEnv(c *Config, vars []configVar, lookup func(string) (string, bool)) (bad map[string]*Error, files fileSources, _ error) {
	bad = make(map[string]*Error)
	fields := reflect.ValueOf(c).Elem()
	for _, v := range vars {
		raw, set, path, err := v.value(lookup)
		if err != nil {
			bad[v.name] = err
			set = false
		}
		if set && path != "" {
			if files == nil {
				files = make(fileSources)
			}
			files[v.name] = path
		}
		if set {
			if derr := decodeField(fields.FieldByIndex(v.index), raw); derr != nil {
				bad[v.name] = &Error{Var: v.name, Reason: decodeReason(fields.FieldByIndex(v.index).Type(), raw)}
				set = false
			}
		}
		if !set && v.def != "" {
			if err := decodeField(fields.FieldByIndex(v.index), v.def); err != nil {
				return nil, nil, fmt.Errorf("configuration: %s: the default %q does not decode", v.name, v.def)
			}
		}
	}
	return bad, files, nil
}

// value is the variable's value from lookup, or, for a secret, from the
// file its _FILE variant names, and then path is that file's. The file's
// trailing white space (spaces, tabs, CR, LF: what editors and container
// platforms leave) is dropped, its leading content kept; a file with
// nothing else is an error, as is a file that cannot be read. Every error
// names the _FILE variable and never the file's content.
func (v configVar) value(lookup func(string) (string, bool)) (raw string, set bool, path string, _ *Error) {
	raw, set = lookup(v.name)
	if !v.secret {
		return raw, set, "", nil
	}
	fileVar := v.fileVar()
	path, fromFile := lookup(fileVar)
	switch {
	case fromFile && set:
		return "", false, "", &Error{Var: fileVar, Reason: "set only one of " + v.name + " and " + fileVar}
	case !fromFile:
		return raw, set, "", nil
	}
	b, err := readSmallFile(path)
	if err != nil {
		return "", false, "", &Error{Var: fileVar, Reason: "cannot read the file: " + fileProblem(err)}
	}
	s := strings.TrimRight(string(b), secretFileSpace)
	switch {
	case len(b) == 0:
		return "", false, "", &Error{Var: fileVar, Reason: "the file " + path + " is empty"}
	case s == "":
		return "", false, "", &Error{Var: fileVar, Reason: "the file " + path + " holds only white space"}
	}
	return s, true, path, nil
}

// secretFileSpace is the trailing white space dropped from a secret's
// file.
const secretFileSpace = " \t\r\n"

// maxSecretFile bounds a secret's file: a token or a URL is far smaller,
// and a path such as /dev/zero must not hang the start.
const maxSecretFile = 64 << 10

// readSmallFile reads the file at path, of at most maxSecretFile bytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err == nil && len(b) > maxSecretFile {
		err = fmt.Errorf("larger than %d KiB", maxSecretFile>>10)
	}
	return b, err
}

// fileVar is the name of the variable that names a file holding the
// Secret variable v: v's name with _FILE appended.
func (v configVar) fileVar() string { return v.name + "_FILE" }

// fileProblem is why a file could not be read, with its path (which the
// operator chose) but nothing of its content.
func fileProblem(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// decodeField sets field from raw: a type that decodes itself does
// (envconfig.Decoder, as under envconfig); otherwise by the field's kind.
func decodeField(field reflect.Value, raw string) error {
	if d, ok := field.Addr().Interface().(envconfig.Decoder); ok {
		return d.Decode(raw)
	}
	if field.Type() == reflect.TypeFor[time.Duration]() {
		d, err := time.ParseDuration(raw)
		field.SetInt(int64(d))
		return err
	}
	switch field.Kind() {
	case reflect.String:
		field.SetString(raw)
		return nil
	case reflect.Int:
		n, err := strconv.Atoi(raw)
		field.SetInt(int64(n))
		return err
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		field.SetBool(b)
		return err
	case reflect.Slice:
		if field.Type().Elem().Kind() == reflect.String {
			field.Set(reflect.ValueOf(strings.Split(raw, ",")).Convert(field.Type()))
			return nil
		}
	}
	return fmt.Errorf("configuration: no decoding for %s", field.Type())
}

// decodeReason says why a value does not decode. Only durations, numbers
// and booleans fail to decode, so the value is shown; secrets never fail.
func decodeReason(typ reflect.Type, raw string) string {
	v := textcut.Runes(raw, 40)
	switch typ {
	case reflect.TypeFor[time.Duration]():
		return fmt.Sprintf("%q is not a duration such as 15s or 24h", v)
	case reflect.TypeFor[int]():
		return fmt.Sprintf("%q is not a whole number", v)
	case reflect.TypeFor[bool]():
		return fmt.Sprintf("%q is not true or false", v)
	}
	return fmt.Sprintf("the value does not decode as %s", typ)
}
