package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mailbot/mailbot/commands"
	"github.com/mailbot/mailbot/internal/textcut"
)

// importFile runs "import FILE [reason…]": the rows of a CSV file, by the
// rules of the /mailbox import form.
func (sh *shell) importFile(ctx context.Context, rest string) {
	name, reason, _ := strings.Cut(rest, " ")
	if name == "" {
		fmt.Fprintln(sh.out, "Type import and a CSV file, such as: import people.csv (rows address[,owner[,given name[,family name]]]).")
		return
	}
	text, err := readBounded(name, commands.MaxImportFile)
	if err != nil {
		fmt.Fprintf(sh.out, "Cannot read %s: %v\n", textcut.Runes(name, 200), err)
		return
	}
	req := commands.Request{UserID: sh.user, Command: commands.CmdMailbox}
	d, errs := sh.core.PrepareImport(ctx, req, commands.ImportInput{File: text, FileName: filepath.Base(name), Reason: strings.TrimSpace(reason)})
	if len(errs) > 0 {
		fmt.Fprintln(sh.out, "Import refused; nothing was done:")
		for _, field := range []string{commands.FieldReason, commands.FieldRows} {
			if e, ok := errs[field]; ok {
				fmt.Fprintln(sh.out, indent(e))
			}
		}
		return
	}
	sh.core.Execute(ctx, commands.Route{User: sh.user}, d)
}

// readBounded reads the file name, refusing one longer than limit bytes.
func readBounded(name string, limit int64) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", errors.New("larger than 1 MiB, the most an import reads")
	}
	return string(b), nil
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// showBundles prints, once, the passwords of the imports' rows without an
// owner as soon as their hand-over is offered: the shell has no buttons,
// so it clicks Show for their requester.
func (sh *shell) showBundles(ctx context.Context) {
	for len(sh.bundles) > 0 {
		id := sh.bundles[0]
		sh.bundles = sh.bundles[1:]
		value := sh.handovers[id]
		h, err := sh.core.DecodeHandover(value)
		if err != nil {
			continue
		}
		fmt.Fprintf(sh.out, "The passwords of the import's rows without an owner, for %s, shown once:\n", h.Owner)
		sh.core.Click(ctx, commands.Click{Kind: commands.ButtonShow, Value: value, User: h.Owner, Route: commands.Route{User: h.Owner},
			Message: commands.MessageRef{Channel: "dm-" + h.Owner, TS: id}})
	}
}
