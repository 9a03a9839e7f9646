package slackfake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// File is an uploaded file as a view_submission's file_input carries it.
type File struct {
	ID         string
	Name       string
	URLPrivate string // served to the bot token only, as files.slack.com does
	Size       int
}

// files are the uploaded files and their downloads.
type files struct {
	mu        sync.Mutex
	content   map[string]string // ID → content
	downloads map[string]int    // ID → downloads with the bot token
	seq       int
}

// UploadFile stores content as a file a user uploaded into a form, and
// returns it for FileInput.
func (s *Server) UploadFile(name, content string) File {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	if s.files.content == nil {
		s.files.content, s.files.downloads = map[string]string{}, map[string]int{}
	}
	s.files.seq++
	id := fmt.Sprintf("F%08d", s.files.seq)
	s.files.content[id] = content
	return File{ID: id, Name: name, URLPrivate: s.srv.URL + "/files-pri/" + TeamID + "-" + id + "/" + name, Size: len(content)}
}

// Downloads is how many times the file id was downloaded with the bot
// token.
func (s *Server) Downloads(id string) int {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	return s.files.downloads[id]
}

// FileInput is the files chosen in a file_input.
func FileInput(blockID, actionID string, fs ...File) Value {
	return Value{BlockID: blockID, ActionID: actionID, Type: "file_input", Files: fs}
}

// serve serves url_private as Slack does: to a bearer bot token
// (scope files:read) only.
func (f *files) serve(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/files-pri/"+TeamID+"-")
	id, _, _ := strings.Cut(rest, "/")
	if r.Header.Get("Authorization") != "Bearer "+BotToken {
		http.Error(w, "not authed", http.StatusForbidden)
		return
	}
	f.mu.Lock()
	content, ok := f.content[id]
	if ok {
		f.downloads[id]++
	}
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/csv")
	_, _ = w.Write([]byte(content))
}

// fileState is a file_input's state as Slack submits it.
func fileState(fs []File) map[string]any {
	list := make([]any, 0, len(fs))
	for _, f := range fs {
		list = append(list, map[string]any{"id": f.ID, "created": 1700000000, "timestamp": 1700000000, "name": f.Name, "title": f.Name,
			"mimetype": "text/csv", "filetype": "csv", "pretty_type": "CSV", "user": "", "size": f.Size, "mode": "hosted",
			"is_external": false, "is_public": false, "url_private": f.URLPrivate, "url_private_download": f.URLPrivate + "?download=1"})
	}
	return map[string]any{"type": "file_input", "files": list}
}

// fileInputState is the state of the file_input el with vals[given]'s
// files, checked against its filetypes and max_files as Slack's client
// checks them.
func fileInputState(el map[string]any, optional bool, vals []Value, given int) (map[string]any, error) {
	var fs []File
	if given >= 0 {
		fs = vals[given].Files
	}
	if len(fs) == 0 && !optional {
		return nil, fmt.Errorf("is required: Slack's client would not submit the form")
	}
	if n, ok := el["max_files"].(float64); ok && len(fs) > int(n) {
		return nil, fmt.Errorf("holds %d files, more than its max_files %v", len(fs), n)
	}
	if types, ok := el["filetypes"].([]any); ok && len(types) > 0 {
		for _, f := range fs {
			ext := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
			if !containsAny(types, ext) {
				return nil, fmt.Errorf("takes %v, not %s", types, f.Name)
			}
		}
	}
	return fileState(fs), nil
}

func containsAny(list []any, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// usersLookupByEmail answers users.lookupByEmail as Slack does:
// users_not_found when nobody has the address.
func (d *directory) usersLookupByEmail(q *apiRequest) answer {
	email := q.get("email")
	d.mu.Lock()
	var found *User
	for _, u := range d.users {
		if email != "" && strings.EqualFold(u.Email, email) && !u.NotVisible {
			found = &u
			break
		}
	}
	d.mu.Unlock()
	if found == nil {
		return fail("users_not_found")
	}
	return answer{"ok": true, "user": userJSON(*found)}
}
