package prompt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// contextNames are the context files looked for in each directory, in
// the order they are added. .hermes.md and HERMES.md are alternatives:
// the first present is used.
var contextNames = [][]string{{"AGENTS.md"}, {".hermes.md", "HERMES.md"}}

const contextHeader = "# Project Context\n\nThe following project context files have been loaded and should be followed:"

// maxReadBytes bounds how much of one file is read; the prompt keeps far
// less (MaxFileChars), so this only protects memory from absurd files.
const maxReadBytes = 8 << 20

// contextFiles finds, reads and formats the context files: the global
// $HERMES_HOME/AGENTS.md, then the project's.
func (b Builder) contextFiles() (string, []string) {
	var (
		dirs     []string
		root     string
		sections []string
		notes    []string
	)
	if b.Workdir != "" {
		dirs, root = searchDirs(b.Workdir)
	}
	if b.Home != "" {
		global := filepath.Join(b.Home, "AGENTS.md")
		text, found, err := readText(global)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("context file %s not used: %v", global, err))
		case found:
			if text = strings.TrimSpace(stripFrontmatter(text)); text != "" {
				body, n := prepareFile(text, "HERMES_HOME/AGENTS.md")
				notes = append(notes, n...)
				sections = append(sections, "## HERMES_HOME/AGENTS.md\n\n"+body)
			}
		}
		if home, err := filepath.Abs(b.Home); err == nil {
			dirs = slices.DeleteFunc(dirs, func(d string) bool { return d == home })
		}
	}
	for _, dir := range dirs {
		for _, alts := range contextNames {
			for _, name := range alts {
				path := filepath.Join(dir, name)
				text, found, err := readText(path)
				if err != nil {
					notes = append(notes, fmt.Sprintf("context file %s not used: %v", path, err))
					break
				}
				if !found {
					continue
				}
				text = strings.TrimSpace(stripFrontmatter(text))
				if text != "" {
					label := displayPath(path, root)
					body, n := prepareFile(text, label)
					notes = append(notes, n...)
					sections = append(sections, "## "+label+"\n\n"+body)
				}
				break
			}
		}
	}
	if len(sections) == 0 {
		return "", notes
	}
	return contextHeader + "\n\n" + strings.Join(sections, "\n\n"), notes
}

// searchDirs returns the directories from the repository root (the
// nearest ancestor of workdir holding .git) down to workdir, outermost
// first, and the root found. Outside a repository only workdir itself is
// searched: a file planted in a parent such as /tmp must not become
// instructions.
func searchDirs(workdir string) ([]string, string) {
	dir, err := filepath.Abs(workdir)
	if err != nil {
		return nil, ""
	}
	start := dir
	var up []string
	root := ""
	for {
		up = append(up, dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			root = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []string{start}, ""
		}
		dir = parent
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up, root
}

// displayPath names a file relative to the repository root, or by its
// absolute path outside a repository.
func displayPath(path, root string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, path); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// readText reads a file as valid UTF-8 text (a BOM removed). A missing
// file is found=false, not an error; directories are ignored.
func readText(path string) (text string, found bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", false, err
	} else if fi.IsDir() {
		return "", false, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxReadBytes))
	if err != nil {
		return "", false, err
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.TrimPrefix(s, "\ufeff"), true, nil
}

// stripFrontmatter drops a leading YAML frontmatter block (between two
// "---" lines); a file whose frontmatter never closes is kept whole.
func stripFrontmatter(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return s
	}
	rest := s[4:]
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \t") == "---" {
			if nl < 0 {
				return ""
			}
			return rest[off+nl+1:]
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return s
}
