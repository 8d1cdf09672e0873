// Package gitignore matches paths against .gitignore files as git does
// (gitignore(5)): the rules of a directory's .gitignore apply below it,
// ! negates, the last matching rule wins. A Set is never modified once
// built, so it may be shared by goroutines walking a tree in parallel.
// Walk walks a tree with the rules in force at each entry, reporting
// ignored entries rather than hiding them.
package gitignore

import (
	"bufio"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// rule is one line of a .gitignore file.
type rule struct {
	base     string // directory of the .gitignore, slash-separated, relative to the repository root ("" at the root)
	re       *regexp.Regexp
	negate   bool
	dirOnly  bool
	basename bool // no slash in the pattern: match the name at any depth
}

// Set is the rules in force in one directory: its ancestors' rules,
// then its own. It is never modified once built, so directories walked in
// parallel share their parent's set.
type Set struct {
	rules []rule
}

// Files reaches the files the rules are read from: a file system other
// than this machine's (a remote host's) gives its own.
type Files struct {
	Open   func(path string) (io.ReadCloser, error)
	Exists func(path string) bool
}

// osFiles are this machine's files.
var osFiles = Files{
	Open: func(p string) (io.ReadCloser, error) { return os.Open(p) },
	Exists: func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	},
}

// With returns a set extended by the rules of the .gitignore at file,
// which lives in directory base.
func (s *Set) With(file, base string) *Set { return s.WithFiles(osFiles, file, base) }

// WithFiles is With reading file through files.
func (s *Set) WithFiles(files Files, file, base string) *Set {
	f, err := files.Open(file)
	if err != nil {
		return s
	}
	defer f.Close()
	var added []rule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, ok := parseLine(sc.Text(), base); ok {
			added = append(added, r)
		}
	}
	if len(added) == 0 {
		return s
	}
	n := &Set{rules: make([]rule, 0, len(s.rules)+len(added))}
	n.rules = append(append(n.rules, s.rules...), added...)
	return n
}

// parseLine follows gitignore(5): blank lines and # comments are
// skipped, trailing unescaped spaces dropped, ! negates, a trailing /
// matches directories only, a slash elsewhere anchors the pattern to the
// .gitignore's directory, and ** spans directories.
func parseLine(line, base string) (rule, bool) {
	line = strings.TrimRight(line, "\r")
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return rule{}, false
	}
	r := rule{base: base}
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return rule{}, false
	}
	if !strings.Contains(line, "/") {
		r.basename = true
	}
	line = strings.TrimPrefix(line, "/")
	re, err := regexp.Compile(GlobRegexp(line))
	if err != nil {
		return rule{}, false
	}
	r.re = re
	return r, true
}

// GlobRegexp translates a gitignore-style glob to an anchored regexp.
func GlobRegexp(g string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			atStart := i == 0 || g[i-1] == '/'
			j := i + 2
			switch {
			case atStart && j < len(g) && g[j] == '/':
				b.WriteString("(?:.*/)?") // "**/" : zero or more directories
				i = j
			case atStart && j == len(g):
				b.WriteString(".*") // trailing "/**": everything inside
				i = j - 1
			default:
				b.WriteString("[^/]*")
				i = j - 1
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := i + 1
			if j < len(g) && (g[j] == '!' || g[j] == '^') {
				j++
			}
			if j < len(g) && g[j] == ']' {
				j++
			}
			for j < len(g) && g[j] != ']' {
				j++
			}
			if j >= len(g) {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : j]
			if class != "" && class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i = j
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// Ignored reports whether rel (slash-separated, relative to the repository
// root) is ignored. The last matching rule wins, as in git.
func (s *Set) Ignored(rel string, isDir bool) bool {
	if s == nil {
		return false
	}
	name := path.Base(rel)
	for i := len(s.rules) - 1; i >= 0; i-- {
		r := &s.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
		}
		target := sub
		if r.basename {
			target = name
		}
		if r.re.MatchString(target) {
			return !r.negate
		}
	}
	return false
}

// Repo finds the repository holding root (a parent with .git) and loads
// the .gitignore files from the repository root down to root's parent,
// plus .git/info/exclude: the rules in force in root before its own
// .gitignore. Without a repository root is the base.
func Repo(root string) (string, *Set) { return RepoFiles(osFiles, root) }

// RepoFiles is Repo reaching the files through files.
func RepoFiles(files Files, root string) (string, *Set) {
	repo := ""
	for d := root; ; {
		if files.Exists(filepath.Join(d, ".git")) {
			repo = d
			break
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	ign := &Set{}
	if repo == "" {
		return root, ign
	}
	ign = ign.WithFiles(files, filepath.Join(repo, ".git", "info", "exclude"), "")
	rel, _ := filepath.Rel(repo, root)
	if rel == "." {
		return repo, ign
	}
	dir, base := repo, ""
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		ign = ign.WithFiles(files, filepath.Join(dir, ".gitignore"), base)
		dir = filepath.Join(dir, part)
		base = strings.TrimPrefix(base+"/"+part, "/")
	}
	return repo, ign
}
