package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// maxHistory is how many entries the input history keeps.
const maxHistory = 1000

// inputHistory is what the user typed, newest last, kept in a JSON Lines
// file under HERMES_HOME so that Up finds it in the next session too.
type inputHistory struct {
	path    string
	entries []string
	pos     int    // index browsed; len(entries) is the line being typed
	draft   string // the line being typed, kept while browsing
}

// loadHistory reads the history file; a missing one is an empty history.
func loadHistory(path string) (*inputHistory, error) {
	h := &inputHistory{path: path}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("input history: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if n := len(h.entries); n > maxHistory {
		h.entries = h.entries[n-maxHistory:]
	}
	h.pos = len(h.entries)
	return h, sc.Err()
}

// add records an entry (not a repeat of the last one) and appends it to
// the file.
func (h *inputHistory) add(s string) error {
	h.pos, h.draft = len(h.entries), ""
	if s == "" || len(h.entries) > 0 && h.entries[len(h.entries)-1] == s {
		return nil
	}
	h.entries = append(h.entries, s)
	h.pos = len(h.entries)
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	b, _ := json.Marshal(s)
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	return nil
}

// prev moves to the older entry; current is the input's text now.
func (h *inputHistory) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next moves to the newer entry, back to the draft past the newest.
func (h *inputHistory) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}
