package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/prompt/untrusted"
)

// writeMu serializes writes to skills directories within the process.
var writeMu sync.Mutex

// ErrFlagged is wrapped by a refused write whose text looks like a prompt
// injection.
var ErrFlagged = errors.New("it looks like a prompt injection")

// scanWrite refuses text that looks like a prompt injection, naming what
// was found.
func scanWrite(what, text string) error {
	if threats := untrusted.ScanStrict(text); len(threats) > 0 {
		return fmt.Errorf("%s refused: %w (%s); nothing was saved", what, ErrFlagged, strings.Join(threats, ", "))
	}
	return nil
}

// openDir opens $HERMES_HOME/skills for writing, creating it. A skills
// directory that resolves to HERMES_HOME or a directory above it is
// refused: writes there could reach config.yaml or .env.
func (l *Library) openDir() (*os.Root, error) {
	if l.Home == "" {
		return nil, errors.New("skills: no HERMES_HOME")
	}
	dir := l.Dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	realHome, err := filepath.EvalSymlinks(l.Home)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	if rel, err := filepath.Rel(realDir, realHome); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return nil, fmt.Errorf("skills: %s resolves to %s, which holds HERMES_HOME itself: refusing to write there", dir, realDir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	return root, nil
}

// checkSkillText parses a SKILL.md about to be written for name.
func checkSkillText(name, content string) error {
	if strings.TrimSpace(content) == "" {
		return errors.New("SKILL.md would be empty")
	}
	m, body, err := Parse([]byte(content))
	if err != nil {
		return fmt.Errorf("SKILL.md: %w", err)
	}
	if m.Name == "" && m.Description == "" && body == content {
		return fmt.Errorf("SKILL.md needs front matter first:\n---\nname: %s\ndescription: what it is for, in one line\n---", name)
	}
	if m.Name != name {
		return fmt.Errorf("SKILL.md's front matter names %q, not %q", m.Name, name)
	}
	if m.Description == "" {
		return errors.New("SKILL.md's front matter needs a description: the one line the skills index shows")
	}
	if strings.TrimSpace(body) == "" {
		return errors.New("SKILL.md has no instructions after its front matter")
	}
	return nil
}

// Create adds a skill to $HERMES_HOME/skills: content is its SKILL.md,
// front matter included. It is scanned first and refused when flagged.
func (l *Library) Create(name, content string) (Skill, error) {
	if err := ValidName(name); err != nil {
		return Skill{}, err
	}
	if err := checkSkillText(name, content); err != nil {
		return Skill{}, err
	}
	if err := scanWrite("skill "+name, content); err != nil {
		return Skill{}, err
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	root, err := l.openDir()
	if err != nil {
		return Skill{}, err
	}
	defer root.Close()
	if _, err := root.Lstat(name); err == nil {
		return Skill{}, fmt.Errorf("skill %s exists already in %s: edit it instead", name, l.Dir())
	}
	if err := root.Mkdir(name, 0o755); err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", name, err)
	}
	if err := writeFile(root, filepath.Join(name, FileName), content); err != nil {
		root.RemoveAll(name)
		return Skill{}, fmt.Errorf("skill %s: %w", name, err)
	}
	return l.home(name)
}

// Edit replaces a file of a skill in $HERMES_HOME/skills: SKILL.md when
// file is empty, else the file at that relative path (created with its
// directories). The text is scanned first and refused when flagged.
func (l *Library) Edit(name, file, content string) (Skill, error) {
	if err := ValidName(name); err != nil {
		return Skill{}, err
	}
	target := FileName
	if file != "" {
		c, err := cleanRel(file)
		if err != nil {
			return Skill{}, fmt.Errorf("skill %s: %w", name, err)
		}
		target = c
	}
	if target == FileName {
		if err := checkSkillText(name, content); err != nil {
			return Skill{}, err
		}
	}
	if err := scanWrite(fmt.Sprintf("skill %s: %s", name, filepath.ToSlash(target)), content); err != nil {
		return Skill{}, err
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	root, err := l.openDir()
	if err != nil {
		return Skill{}, err
	}
	defer root.Close()
	if err := l.mustOwn(root, name); err != nil {
		return Skill{}, err
	}
	path := filepath.Join(name, target)
	if d := filepath.Dir(path); d != name {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return Skill{}, fmt.Errorf("skill %s: %w", name, err)
		}
	}
	if err := writeFile(root, path, content); err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", name, err)
	}
	return l.home(name)
}

// Delete removes a skill from $HERMES_HOME/skills, or one of its files
// when file is set.
func (l *Library) Delete(name, file string) error {
	if err := ValidName(name); err != nil {
		return err
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	root, err := l.openDir()
	if err != nil {
		return err
	}
	defer root.Close()
	if err := l.mustOwn(root, name); err != nil {
		return err
	}
	if file == "" {
		if err := root.RemoveAll(name); err != nil {
			return fmt.Errorf("skill %s: %w", name, err)
		}
		return nil
	}
	c, err := cleanRel(file)
	if err != nil {
		return fmt.Errorf("skill %s: %w", name, err)
	}
	if c == FileName {
		return fmt.Errorf("skill %s: delete the skill itself rather than its SKILL.md", name)
	}
	if err := root.Remove(filepath.Join(name, c)); err != nil {
		return fmt.Errorf("skill %s: %w", name, err)
	}
	return nil
}

// mustOwn checks that name is a skill of $HERMES_HOME/skills, saying so
// when it is one found elsewhere.
func (l *Library) mustOwn(root *os.Root, name string) error {
	fi, err := root.Lstat(name)
	if err == nil && fi.IsDir() {
		if _, err := root.Stat(filepath.Join(name, FileName)); err == nil {
			return nil
		}
	}
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("skill %s in %s is a link: change it where it points", name, l.Dir())
	}
	if s, gerr := l.Get(name); gerr == nil && s.Source != SourceHome {
		return fmt.Errorf("skill %s is a %s skill in %s: only skills in %s can be changed this way", name, s.Source, s.Dir, l.Dir())
	}
	return fmt.Errorf("no skill %s in %s", name, l.Dir())
}

func (l *Library) home(name string) (Skill, error) {
	s, _, err := read(filepath.Join(l.Dir(), name), SourceHome)
	return s, err
}

// writeFile replaces a file atomically inside root.
func writeFile(root *os.Root, path, content string) error {
	tmp := path + ".tmp"
	if err := root.WriteFile(tmp, []byte(content), 0o644); err != nil {
		return err
	}
	if err := root.Rename(tmp, path); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}
