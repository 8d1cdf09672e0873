package memory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Separator joins entries in a memory file.
const Separator = "\n§\n"

// layout is how a file was written, kept so a rewrite looks the same.
type layout struct {
	crlf bool // lines end with \r\n
	bom  bool // starts with a UTF-8 byte order mark
}

// parse splits a file into entries. Any line holding only "§" (spaces
// around it allowed) separates entries; blank lines around an entry are
// dropped; empty entries vanish. Nothing else is changed, so a file with
// no separators is one entry, and invalid UTF-8 is kept byte for byte.
func parse(raw []byte) ([]string, layout) {
	var l layout
	s := string(raw)
	if strings.HasPrefix(s, "\ufeff") {
		l.bom, s = true, s[len("\ufeff"):]
	}
	if strings.Contains(s, "\r\n") {
		l.crlf, s = true, strings.ReplaceAll(s, "\r\n", "\n")
	}
	var (
		entries []string
		cur     []string
	)
	flush := func() {
		if e := trimEntry(strings.Join(cur, "\n")); e != "" {
			entries = append(entries, e)
		}
		cur = cur[:0]
	}
	for _, line := range strings.Split(s, "\n") {
		if isSeparator(line) {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return entries, l
}

func isSeparator(line string) bool { return strings.TrimSpace(line) == "§" }

// trimEntry drops blank lines before an entry and trailing whitespace,
// but keeps the indentation of its first line.
func trimEntry(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 || strings.TrimSpace(s[:nl]) != "" {
			return s
		}
		s = s[nl+1:]
	}
}

// serialize is the inverse of parse.
func serialize(entries []string, l layout) []byte {
	s := strings.Join(entries, Separator)
	if s != "" {
		s += "\n"
	}
	if l.crlf {
		s = strings.ReplaceAll(s, "\n", "\r\n")
	}
	if l.bom {
		s = "\ufeff" + s
	}
	return []byte(s)
}

// chars is the budgeted size of entries: characters of the joined text.
// Invalid UTF-8 bytes count one each.
func chars(entries []string) int {
	if len(entries) == 0 {
		return 0
	}
	return utf8.RuneCountInString(strings.Join(entries, Separator))
}

// readFile returns the file's bytes, nil when it does not exist.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// writeAtomic replaces path's content through a temporary file in the
// same directory and a rename, so a reader (or a crash) sees the old file
// or the new one, never half of it. A symlink is followed so its target
// is updated rather than replaced by a regular file; the file's mode is
// kept (0600 for a new file).
func writeAtomic(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, mode); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	// Make the rename durable. Not every platform can sync a directory;
	// the data itself is already synced, so a failure here is not fatal.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// file is one memory file and what was last seen on disk.
type file struct {
	target  Target
	name    string // MEMORY.md, USER.md
	path    string
	limit   int
	entries []string
	layout  layout
	// disk holds the bytes last read from or written to the file (nil when
	// it did not exist), to notice edits made outside the store.
	disk []byte
}

// refresh re-reads the file and reports whether it changed on disk since
// the store last read or wrote it.
func (f *file) refresh() (bool, error) {
	b, err := readFile(f.path)
	if err != nil {
		return false, fmt.Errorf("memory: read %s: %w", f.path, err)
	}
	if f.disk != nil && b != nil && bytes.Equal(b, f.disk) {
		return false, nil
	}
	if f.disk == nil && b == nil {
		return false, nil
	}
	f.disk = b
	f.entries, f.layout = parse(b)
	return true, nil
}

// store writes entries to disk and makes them the live state.
func (f *file) store(entries []string) error {
	data := serialize(entries, f.layout)
	if err := writeAtomic(f.path, data); err != nil {
		return fmt.Errorf("memory: write %s: %w", f.path, err)
	}
	f.entries, f.disk = entries, data
	return nil
}
