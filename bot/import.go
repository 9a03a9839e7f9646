package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"go.uber.org/zap"

	"github.com/mailbot/mailbot/commands"
)

// The import form: its callback_id and its fields' block_ids.
const (
	importCallbackID = "mailbot_import"
	importRowsBlock  = "mailbot_rows"
	importFileBlock  = "mailbot_file"
)

// importCheckTimeout bounds the check of a submitted import (the file's
// download and the owners' look-ups): Slack waits 3 s for the answer.
const importCheckTimeout = 2500 * time.Millisecond

// importView is the modal of /mailbox import: the rows typed, a CSV file,
// and the reason.
func importView(f *commands.Form) slack.ModalViewRequest {
	text := slack.NewPlainTextInputBlockElement(slack.NewTextBlockObject(slack.PlainTextType, "ada@example.com,U012AB3CD,Ada,Lovelace", false, false), formValue)
	text.Multiline = true
	text.MaxLength = 3000
	rows := slack.NewInputBlock(importRowsBlock, slack.NewTextBlockObject(slack.PlainTextType, "Mailboxes, one a line", false, false), nil, text)
	rows.Optional = true
	rows.Hint = slack.NewTextBlockObject(slack.PlainTextType, "address[,owner[,given name[,family name]]]; owner: a Slack user ID or an e-mail. Lines starting with # are skipped.", false, false)
	file := slack.NewInputBlock(importFileBlock, slack.NewTextBlockObject(slack.PlainTextType, "Or a CSV file", false, false), nil,
		slack.NewFileInputBlockElement(formValue).WithFileTypes("csv").WithMaxFiles(1))
	file.Optional = true
	reasonHint := "Optional: why this is needed. The admins see it."
	if f.ReasonRequired {
		reasonHint = "Required: this needs an admin's approval, and the admins see why."
	}
	reason := textInput(commands.FieldReason, "Reason", "New office in Lisbon", "", !f.ReasonRequired)
	reason.Hint = slack.NewTextBlockObject(slack.PlainTextType, reasonHint, false, false)
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      importCallbackID,
		Title:           slack.NewTextBlockObject(slack.PlainTextType, "Import mailboxes", false, false),
		Submit:          slack.NewTextBlockObject(slack.PlainTextType, "Check and import", false, false),
		Close:           slack.NewTextBlockObject(slack.PlainTextType, "Cancel", false, false),
		PrivateMetadata: f.Metadata,
		Blocks:          slack.Blocks{BlockSet: []slack.Block{rows, file, reason}},
	}
}

// submittedFile is a file of a file_input as a view_submission carries
// it (slack-go's BlockAction has no field for it).
type submittedFile struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	URLPrivate string `json:"url_private"`
	Size       int64  `json:"size"`
}

// submissionFiles reads the files of the import form's file field from
// the raw payload: view.state.values.<block>.<action>.files.
func submissionFiles(payload json.RawMessage) []submittedFile {
	var p struct {
		View struct {
			State struct {
				Values map[string]map[string]struct {
					Files []submittedFile `json:"files"`
				} `json:"values"`
			} `json:"state"`
		} `json:"view"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	return p.View.State.Values[importFileBlock][formValue].Files
}

// submitImport checks a submitted import form with the core and returns
// the acknowledgement's payload, within Slack's 3 s: the problems found
// without asking Slack (the form stays open); "clear", with the import
// handed to the workers, when no row names an owner; otherwise the form
// becomes a "checking" view and the owners are checked after the answer
// (checkOwners).
func (b *Bot) submitImport(req *socketmode.Request, cb slack.InteractionCallback) any {
	ctx, cancel := context.WithTimeout(context.Background(), importCheckTimeout)
	defer cancel()
	in := commands.ImportInput{Reason: formField(cb, commands.FieldReason)}
	if a, ok := cb.View.State.Values[importRowsBlock][formValue]; ok {
		in.Text = a.Value
	}
	if files := submissionFiles(req.Payload); len(files) > 0 {
		text, problem, err := b.readFile(ctx, files[0])
		if err != nil {
			b.log.Warn("import file not read", zap.String("file_id", files[0].ID), zap.Error(err))
			return slack.NewErrorsViewSubmissionResponse(map[string]string{importFileBlock: problem})
		}
		in.File, in.FileName = text, files[0].Name
	}
	ic, problems := b.core.SubmitImport(cb.User.ID, cb.View.PrivateMetadata, in)
	if problems == nil {
		problems = ic.Problems()
	}
	if problems != nil {
		return b.importErrors(problems)
	}
	to := commands.Route{User: cb.User.ID, Channel: ic.Channel()}
	if ic.Owners() > 0 {
		return b.checkLater(to, cb, ic, in)
	}
	d, problems := b.core.FinishImport(ctx, ic)
	if problems != nil {
		return b.importErrors(problems)
	}
	if refused, ok := b.takeCommand(commands.CmdMailbox, to, d); !ok {
		return slack.NewErrorsViewSubmissionResponse(map[string]string{importRowsBlock: refused.Field})
	}
	return slack.NewClearViewSubmissionResponse()
}

// importErrors is the answer that keeps the form open with problems by
// field, and counts it.
func (b *Bot) importErrors(problems map[string]string) any {
	b.m.commands.WithLabelValues("form", commands.LabelInvalid).Inc()
	return slack.NewErrorsViewSubmissionResponse(importBlockErrors(problems))
}

// importBlockErrors puts the core's problems by field on the form's
// blocks.
func importBlockErrors(problems map[string]string) map[string]string {
	errs := map[string]string{}
	for field, p := range problems {
		block := importRowsBlock
		if field == commands.FieldReason {
			block = formBlockIDs[commands.FieldReason]
		}
		errs[block] = fitText(strings.ReplaceAll(p, "\x00", ""), maxFormError) // plain text: @U… for a mention
	}
	return errs
}

// errFileTooLarge is a CSV file over commands.MaxImportFile.
var errFileTooLarge = errors.New("file larger than 1 MiB")

// The form's words for a file that cannot be read.
const (
	tooLargeWords = "The file is larger than 1 MiB, the most an import reads: split it."
	notSlackWords = "mailbot reads files from Slack only."
	unreadWords   = "mailbot could not read the file from Slack. Try again."
)

// readFile downloads a submitted file from its url_private with the bot
// token (scope files:read), at most commands.MaxImportFile bytes. The
// token goes only to Slack: the URL must be on the Web API's host or a
// subdomain of its domain. problem is what the form says when it fails.
func (b *Bot) readFile(ctx context.Context, f submittedFile) (text, problem string, err error) {
	if f.Size > commands.MaxImportFile {
		return "", tooLargeWords, errFileTooLarge
	}
	if !b.slackHost(f.URLPrivate) {
		return "", notSlackWords, fmt.Errorf("url_private not on Slack's host: %q", fitText(f.URLPrivate, 80))
	}
	w := &boundedWriter{limit: commands.MaxImportFile}
	if err := b.api.GetFileContext(ctx, f.URLPrivate, w); err != nil {
		if errors.Is(err, errFileTooLarge) {
			return "", tooLargeWords, err
		}
		return "", unreadWords, err
	}
	return w.b.String(), "", nil
}

// slackHost reports whether raw is an https URL (http on loopback, for
// tests) on the Web API's host (Config.APIURL), or under the domain the
// API's host is in (files.slack.com for slack.com).
func (b *Bot) slackHost(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || checkResponseURL(raw) != nil {
		return false
	}
	api, err := url.Parse(b.cfg.APIURL)
	if err != nil || api.Host == "" {
		api = &url.URL{Host: "slack.com"}
	}
	if u.Host == api.Host {
		return true
	}
	domain := api.Hostname()
	if i := strings.IndexByte(domain, '.'); strings.Count(domain, ".") > 1 && i >= 0 {
		domain = domain[i+1:] // api.slack.com → slack.com
	}
	return strings.HasSuffix(u.Hostname(), "."+domain)
}

// boundedWriter keeps at most limit bytes and refuses more.
type boundedWriter struct {
	b     strings.Builder
	limit int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.limit {
		return 0, errFileTooLarge
	}
	return w.b.Write(p)
}

// PostProgress sends an import's progress to user in their direct message
// with the bot.
func (m *Messenger) PostProgress(ctx context.Context, user string, r commands.Reply) (commands.MessageRef, error) {
	dm, err := m.openDM(ctx, user)
	if err != nil {
		return commands.MessageRef{}, err
	}
	ch, ts, err := retryingPair(ctx, func() (string, string, error) {
		return m.post(ctx, dm, fallbackText(r), replyBlocks(r)...)
	})
	if err != nil {
		return commands.MessageRef{}, fmt.Errorf("chat.postMessage: %w", err)
	}
	return commands.MessageRef{Channel: ch, TS: ts}, nil
}

// UpdateProgress replaces the progress message with r (chat.update).
func (m *Messenger) UpdateProgress(ctx context.Context, ref commands.MessageRef, r commands.Reply) error {
	return chatUpdate(m.update(ctx, ref, messageOptions(r)...))
}

// PostNotice posts an import's notice to the ops channel and says where;
// nowhere without an ops channel.
func (m *Messenger) PostNotice(ctx context.Context, text string) (commands.MessageRef, error) {
	if m.cfg.OpsChannel == "" {
		return commands.MessageRef{}, nil
	}
	body := escape(text)
	ch, ts, err := retryingPair(ctx, func() (string, string, error) {
		return m.post(ctx, m.cfg.OpsChannel, fitText(body, maxNoticeText), plainSection(body))
	})
	m.count(err)
	if err != nil {
		return commands.MessageRef{}, fmt.Errorf("ops notice: %w", err)
	}
	return commands.MessageRef{Channel: ch, TS: ts}, nil
}

// UpdateNotice replaces an import's ops notice with text.
func (m *Messenger) UpdateNotice(ctx context.Context, ref commands.MessageRef, text string) error {
	body := escape(text)
	return chatUpdate(m.update(ctx, ref, slack.MsgOptionText(fitText(body, maxNoticeText), false), slack.MsgOptionBlocks(plainSection(body))))
}

var _ commands.ImportMessenger = (*Messenger)(nil)

// UserByEmail finds the person with the e-mail address
// (users.lookupByEmail, scope users:read.email), whose answer describes
// them as users.info would.
func (p *People) UserByEmail(ctx context.Context, email string) (string, commands.Person, bool, error) {
	u, err := retrying(ctx, func() (*slack.User, error) { return p.api.GetUserByEmailContext(ctx, email) })
	if err != nil {
		if se := (slack.SlackErrorResponse{}); errors.As(err, &se) && se.Err == "users_not_found" {
			return "", commands.Person{}, false, nil
		}
		return "", commands.Person{}, false, fmt.Errorf("users.lookupByEmail: %w", err)
	}
	return u.ID, p.person(u), true, nil
}

var _ commands.PeopleByEmail = (*People)(nil)
