package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/prompt/untrusted"
)

// Root is a directory skills are found in.
type Root struct {
	Dir    string
	Source string
}

// Roots are the directories skills are found in, in precedence order:
// home's skills, the project's (.hermes/skills and .agents/skills from
// workdir up to the repository root), then external.
func Roots(home, workdir string, external []string) []Root {
	var out []Root
	if home != "" {
		out = append(out, Root{filepath.Join(home, "skills"), SourceHome})
	}
	for _, d := range projectDirs(workdir) {
		out = append(out, Root{filepath.Join(d, ".hermes", "skills"), SourceProject}, Root{filepath.Join(d, ".agents", "skills"), SourceProject})
	}
	for _, d := range external {
		out = append(out, Root{d, SourceExternal})
	}
	return out
}

// projectDirs are workdir and its parents up to the directory holding
// .git, innermost first; workdir alone outside a repository.
func projectDirs(workdir string) []string {
	if workdir == "" {
		return nil
	}
	var dirs []string
	for d := workdir; ; {
		dirs = append(dirs, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dirs[:1]
		}
		d = parent
	}
}

// maxDepth is how deep under a root SKILL.md is looked for
// (root/category/name/SKILL.md is depth 2).
const maxDepth = 3

// Discover finds the skills under roots, sorted by name. Problems (an
// unreadable SKILL.md, a bad name, a shadowed name, a skill that looks
// like a prompt injection) are returned as notes; those skills are left
// out.
func Discover(roots []Root) ([]Skill, []string) {
	var found []Skill
	var notes []string
	seen := map[string]Skill{}
	visited := map[string]bool{}
	for _, r := range roots {
		walk(r.Dir, 0, visited, func(dir string) {
			s, body, err := read(dir, r.Source)
			if err != nil {
				notes = append(notes, fmt.Sprintf("skill in %s skipped: %v", dir, err))
				return
			}
			if first, ok := seen[s.Name]; ok {
				notes = append(notes, fmt.Sprintf("skill %s in %s is shadowed by the one in %s", s.Name, dir, first.Dir))
				return
			}
			if threats := untrusted.ScanContext(s.Name + "\n" + s.Description + "\n" + body); len(threats) > 0 {
				notes = append(notes, fmt.Sprintf("skill %s in %s skipped: it looks like a prompt injection (%s)", s.Name, dir, strings.Join(threats, ", ")))
				return
			}
			seen[s.Name] = s
			found = append(found, s)
		})
	}
	slices.SortFunc(found, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return found, notes
}

// walk calls skill for every directory under dir holding SKILL.md,
// without searching inside a skill.
func walk(dir string, depth int, visited map[string]bool, skill func(dir string)) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || visited[real] {
		return
	}
	visited[real] = true
	if fi, err := os.Stat(filepath.Join(dir, FileName)); err == nil && fi.Mode().IsRegular() {
		skill(dir) // a root may be one skill itself
		return
	}
	if depth >= maxDepth {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		p := filepath.Join(dir, name)
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				continue
			}
		} else if !e.IsDir() {
			continue
		}
		walk(p, depth+1, visited, skill)
	}
}
