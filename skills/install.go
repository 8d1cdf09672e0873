package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/prompt/untrusted"
)

// Limits of what an install copies.
const (
	maxInstallFiles = 1000
	maxInstallBytes = 20 << 20
)

// IsGitURL reports whether src names a git repository rather than a
// local directory.
func IsGitURL(src string) bool {
	if _, err := os.Stat(src); err == nil {
		return false
	}
	return strings.Contains(src, "://") || strings.HasPrefix(src, "git@") || strings.HasSuffix(src, ".git")
}

// Install copies the skills at src into $HERMES_HOME/skills: src is a
// skill directory, a directory holding skill directories, or a git URL
// (cloned with git, shallowly). Everything is checked before anything is
// copied: a skill whose files look like a prompt injection, hold a
// symbolic link, are too many or too large, or whose name is taken
// (unless force) refuses the whole install.
func (l *Library) Install(ctx context.Context, src string, force bool) ([]Skill, error) {
	if IsGitURL(src) {
		tmp, err := os.MkdirTemp("", "hermes-skill-clone-")
		if err != nil {
			return nil, fmt.Errorf("skills install: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir := filepath.Join(tmp, "repo")
		cmd := exec.CommandContext(ctx, "git", "clone", "--depth", "1", "--quiet", "--", src, dir)
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("skills install: git clone %s: %v: %s", src, err, strings.TrimSpace(string(out)))
		}
		src = dir
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("skills install: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("skills install: %s is not a directory", src)
	}
	var dirs []string
	walk(src, 0, map[string]bool{}, func(d string) { dirs = append(dirs, d) })
	if len(dirs) == 0 {
		return nil, fmt.Errorf("skills install: no %s in %s (nor in its subdirectories)", FileName, src)
	}
	type planned struct {
		skill Skill
		files []string
	}
	var plan []planned
	var problems []string
	names := map[string]bool{}
	for _, d := range dirs {
		s, _, err := read(d, SourceHome)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		if names[s.Name] {
			problems = append(problems, fmt.Sprintf("%s: a second skill named %s", d, s.Name))
			continue
		}
		names[s.Name] = true
		files, errs := check(d, s.Name)
		problems = append(problems, errs...)
		if !force {
			if _, err := os.Lstat(filepath.Join(l.Dir(), s.Name)); err == nil {
				problems = append(problems, fmt.Sprintf("skill %s is installed already (in %s): remove it first, or install with --force", s.Name, l.Dir()))
			}
		}
		plan = append(plan, planned{s, files})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("skills install %s refused; nothing was installed:\n  %s", src, strings.Join(problems, "\n  "))
	}
	var out []Skill
	for _, p := range plan {
		s, err := l.copyIn(p.skill, p.files)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// check lists a skill's files and what is wrong with them: SKILL.md is
// scanned as strictly as anything the agent writes, its other text files
// as context files are.
func check(dir, name string) ([]string, []string) {
	var files, problems []string
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, fmt.Sprintf("skill %s: %v", name, err))
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			problems = append(problems, fmt.Sprintf("skill %s: %s is a symbolic link; a skill must hold its own files", name, rel))
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			problems = append(problems, fmt.Sprintf("skill %s: %s is not a regular file", name, rel))
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			problems = append(problems, fmt.Sprintf("skill %s: %v", name, err))
			return nil
		}
		total += fi.Size()
		files = append(files, rel)
		if len(files) > maxInstallFiles || total > maxInstallBytes {
			problems = append(problems, fmt.Sprintf("skill %s: more than %d files or %d MB", name, maxInstallFiles, maxInstallBytes>>20))
			return filepath.SkipAll
		}
		b, err := os.ReadFile(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("skill %s: %v", name, err))
			return nil
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary: nothing a model reads as text
		}
		scan := untrusted.ScanContext
		if rel == FileName {
			scan = untrusted.ScanStrict
		}
		if threats := scan(string(b)); len(threats) > 0 {
			problems = append(problems, fmt.Sprintf("skill %s: %s %v (%s)", name, rel, ErrFlagged, strings.Join(threats, ", ")))
		}
		return nil
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("skill %s: %v", name, err))
	}
	return files, problems
}

// copyIn copies a checked skill into $HERMES_HOME/skills/<name>, through
// a temporary directory there, replacing what was installed under the
// name.
func (l *Library) copyIn(s Skill, files []string) (Skill, error) {
	writeMu.Lock()
	defer writeMu.Unlock()
	root, err := l.openDir()
	if err != nil {
		return Skill{}, err
	}
	defer root.Close()
	tmp := ".install-" + s.Name
	if err := root.RemoveAll(tmp); err != nil {
		return Skill{}, fmt.Errorf("skills install: %w", err)
	}
	fail := func(err error) (Skill, error) {
		root.RemoveAll(tmp)
		return Skill{}, fmt.Errorf("skills install %s: %w", s.Name, err)
	}
	if err := root.Mkdir(tmp, 0o755); err != nil {
		return fail(err)
	}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(s.Dir, rel))
		if err != nil {
			return fail(err)
		}
		dst := filepath.Join(tmp, rel)
		if err := root.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fail(err)
		}
		mode := os.FileMode(0o644)
		if fi, err := os.Stat(filepath.Join(s.Dir, rel)); err == nil && fi.Mode()&0o111 != 0 {
			mode = 0o755 // scripts stay runnable
		}
		if err := root.WriteFile(dst, b, mode); err != nil {
			return fail(err)
		}
	}
	if err := root.RemoveAll(s.Name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	if err := root.Rename(tmp, s.Name); err != nil {
		return fail(err)
	}
	return l.home(s.Name)
}

// Remove deletes an installed skill from $HERMES_HOME/skills.
func (l *Library) Remove(name string) error { return l.Delete(name, "") }
