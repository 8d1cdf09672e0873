package skills

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// Where a skill was found.
const (
	SourceHome     = "home"
	SourceProject  = "project"
	SourceExternal = "external"
)

// Skill is one skill as found: its metadata and where it lives. The body
// is read on demand (Load).
type Skill struct {
	Name        string
	Description string
	// Dir holds SKILL.md and the skill's files.
	Dir    string
	Source string
}

// Path is the skill's SKILL.md.
func (s Skill) Path() string { return filepath.Join(s.Dir, FileName) }

// Meta is SKILL.md's front matter; keys other than these are allowed
// (version, platforms, metadata, ...) and kept in the file.
type Meta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

var validName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName reports whether name can name a skill: letters, digits, '.',
// '_' and '-', starting with a letter or digit, at most 64 characters. It
// is also a directory name and a slash command.
func ValidName(name string) error {
	if len(name) > 64 || !validName.Get().MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("skill name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64)", name)
	}
	return nil
}

// Parse splits a SKILL.md into its front matter and its body. A file
// without front matter is all body.
func Parse(b []byte) (Meta, string, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return Meta{}, s, nil
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		if f, ok2 := strings.CutSuffix(rest, "\n---"); ok2 {
			front, body, ok = f, "", true
		}
	}
	if !ok {
		return Meta{}, "", errors.New("front matter opened with --- is never closed")
	}
	var m Meta
	if err := yaml.Unmarshal([]byte(front), &m); err != nil {
		return Meta{}, "", fmt.Errorf("front matter: %w", err)
	}
	m.Name, m.Description = strings.TrimSpace(m.Name), oneLine(m.Description)
	return m, strings.TrimLeft(body, "\n"), nil
}

// oneLine folds a description onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// read reads and parses the skill in dir; the name defaults to the
// directory's.
func read(dir, source string) (Skill, string, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return Skill{}, "", err
	}
	m, body, err := Parse(b)
	if err != nil {
		return Skill{}, "", err
	}
	if m.Name == "" {
		m.Name = filepath.Base(dir)
	}
	if err := ValidName(m.Name); err != nil {
		return Skill{}, "", err
	}
	return Skill{Name: m.Name, Description: m.Description, Dir: dir, Source: source}, body, nil
}

// Load returns the whole SKILL.md.
func (s Skill) Load() (string, error) {
	b, err := os.ReadFile(s.Path())
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	return string(b), nil
}

// Body returns SKILL.md without its front matter.
func (s Skill) Body() (string, error) {
	text, err := s.Load()
	if err != nil {
		return "", err
	}
	_, body, err := Parse([]byte(text))
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	return body, nil
}

// maxFiles caps the files a skill lists.
const maxFiles = 200

// Files lists the skill's other files, relative to its directory, in
// order; hidden ones are left out.
func (s Skill) Files() ([]string, error) {
	var out []string
	err := filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is not worth failing the list
		}
		rel, _ := filepath.Rel(s.Dir, p)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || rel == FileName {
			return nil
		}
		if len(out) >= maxFiles {
			return filepath.SkipAll
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// maxFileBytes caps a file skill_view returns.
const maxFileBytes = 256 << 10

// ReadFile reads one of the skill's files by its relative path. A path
// that leaves the skill's directory, also through a symbolic link, is
// refused.
func (s Skill) ReadFile(rel string) (string, error) {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	defer root.Close()
	name, err := cleanRel(rel)
	if err != nil {
		return "", err
	}
	f, err := root.Open(name)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("skill %s: %s is a directory", s.Name, rel)
	}
	if fi.Size() > maxFileBytes {
		return "", fmt.Errorf("skill %s: %s is %d bytes, more than the %d skill_view returns; read it with read_file at %s", s.Name, rel, fi.Size(), maxFileBytes, filepath.Join(s.Dir, name))
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil && fi.Size() > 0 {
		return "", fmt.Errorf("skill %s: %w", s.Name, err)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", fmt.Errorf("skill %s: %s is a binary file (%d bytes) at %s", s.Name, rel, len(b), filepath.Join(s.Dir, name))
	}
	return string(b), nil
}

// cleanRel is a relative path inside a directory, or an error.
func cleanRel(rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(rel, "~") {
		return "", fmt.Errorf("%q: give a path relative to the skill's directory", rel)
	}
	c := filepath.Clean(filepath.FromSlash(rel))
	if c == "." || c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q: the path leaves the skill's directory", rel)
	}
	return c, nil
}
