package file

import (
	"bufio"
	"os"
	"path"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	base     string // directory of the .gitignore, slash-separated, relative to the repository root ("" at the root)
	re       *regexp.Regexp
	negate   bool
	dirOnly  bool
	basename bool // no slash in the pattern: match the name at any depth
}

// ignoreSet is the rules in force in one directory: its ancestors' rules,
// then its own. It is never modified once built, so directories walked in
// parallel share their parent's set.
type ignoreSet struct {
	rules []ignoreRule
}

// with returns a set extended by the rules of the .gitignore at file,
// which lives in directory base.
func (s *ignoreSet) with(file, base string) *ignoreSet {
	f, err := os.Open(file)
	if err != nil {
		return s
	}
	defer f.Close()
	var added []ignoreRule
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text(), base); ok {
			added = append(added, r)
		}
	}
	if len(added) == 0 {
		return s
	}
	n := &ignoreSet{rules: make([]ignoreRule, 0, len(s.rules)+len(added))}
	n.rules = append(append(n.rules, s.rules...), added...)
	return n
}

// parseIgnoreLine follows gitignore(5): blank lines and # comments are
// skipped, trailing unescaped spaces dropped, ! negates, a trailing /
// matches directories only, a slash elsewhere anchors the pattern to the
// .gitignore's directory, and ** spans directories.
func parseIgnoreLine(line, base string) (ignoreRule, bool) {
	line = strings.TrimRight(line, "\r")
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	r := ignoreRule{base: base}
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
		return ignoreRule{}, false
	}
	if !strings.Contains(line, "/") {
		r.basename = true
	}
	line = strings.TrimPrefix(line, "/")
	re, err := regexp.Compile(globRegexp(line))
	if err != nil {
		return ignoreRule{}, false
	}
	r.re = re
	return r, true
}

// globRegexp translates a gitignore-style glob to an anchored regexp.
func globRegexp(g string) string {
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

// ignored reports whether rel (slash-separated, relative to the repository
// root) is ignored. The last matching rule wins, as in git.
func (s *ignoreSet) ignored(rel string, isDir bool) bool {
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
