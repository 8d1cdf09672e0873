package approval

import (
	"strconv"
	"strings"
)

// segment is one simple command: its words with quoting removed, and the
// files it redirects output to.
type segment struct {
	words     []string
	redirects []string // targets of > >> >| &> (output only)
	herestr   []string // <<< words
	// The parser fills in the rest.
	truncates  []string // targets of > >| &> (not appends)
	inputs     []string // files redirected to standard input
	stdin      string   // heredoc or here-string text
	stdinKnown bool
	dyn        []bool   // per word: computed at run time
	raw        []string // per word: its source text
}

// pipeline is segments joined by | or |&.
type pipeline []segment

// parsed is a command line split into pipelines, plus the text of every
// command or process substitution, which the shell also runs.
type parsed struct {
	pipelines []pipeline
	subs      []string
}

// lex splits a shell command the way the shell would for the purpose of
// finding commands: quotes and backslashes are removed from words (so
// r"m" is rm), $IFS and ${IFS} separate words, $'\x72m' is decoded,
// ; && || & | and newlines end commands, and $(...), `...`, <(...) and
// >(...) are collected as commands of their own. Single quotes keep
// everything literal, as in the shell: echo 'rm -rf /' runs echo.
func lex(s string) parsed {
	var p parsed
	var pl pipeline
	var seg segment
	var word strings.Builder
	inWord := false
	pendingRedirect := 0 // 1: next word is an output target; 2: here-string
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		switch pendingRedirect {
		case 1:
			seg.redirects = append(seg.redirects, w)
		case 2:
			seg.herestr = append(seg.herestr, w)
		case 3: // an input file or a heredoc delimiter: not a command word
		default:
			seg.words = append(seg.words, w)
		}
		pendingRedirect = 0
	}
	endSeg := func() {
		endWord()
		if len(seg.words) > 0 || len(seg.redirects) > 0 {
			pl = append(pl, seg)
		}
		seg = segment{}
	}
	endPipe := func() {
		endSeg()
		if len(pl) > 0 {
			p.pipelines = append(p.pipelines, pl)
		}
		pl = nil
	}
	rs := []rune(s)
	n := len(rs)
	for i := 0; i < n; i++ {
		c := rs[i]
		switch {
		case c == '\\':
			if i+1 < n {
				i++
				if rs[i] != '\n' {
					word.WriteRune(rs[i])
					inWord = true
				}
			}
		case c == '\'':
			j := i + 1
			for j < n && rs[j] != '\'' {
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, n)]))
			inWord = true
			i = j
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < n && rs[j] != '"'; j++ {
				switch {
				case rs[j] == '\\' && j+1 < n && strings.ContainsRune("\"\\$`\n", rs[j+1]):
					j++
					if rs[j] != '\n' {
						word.WriteRune(rs[j])
					}
				case rs[j] == '$' && j+1 < n && rs[j+1] == '(':
					k := matchParen(rs, j+1)
					p.subs = append(p.subs, string(rs[j+2:k]))
					word.WriteString(string(rs[j:min(k+1, n)]))
					j = k
				case rs[j] == '`':
					k := j + 1
					for k < n && rs[k] != '`' {
						k++
					}
					p.subs = append(p.subs, string(rs[j+1:min(k, n)]))
					j = k
				case rs[j] == '$' && hasIFS(rs, j):
					word.WriteRune(' ')
					j += ifsLen(rs, j) - 1
				default:
					word.WriteRune(rs[j])
				}
			}
			i = j
		case c == '$' && i+1 < n && rs[i+1] == '\'':
			j := i + 2
			for j < n && rs[j] != '\'' {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			word.WriteString(ansiC(string(rs[i+2 : min(j, n)])))
			inWord = true
			i = j
		case c == '$' && i+1 < n && rs[i+1] == '(':
			k := matchParen(rs, i+1)
			p.subs = append(p.subs, string(rs[i+2:min(k, n)]))
			word.WriteString(string(rs[i:min(k+1, n)]))
			inWord = true
			i = k
		case c == '$' && hasIFS(rs, i):
			endWord()
			i += ifsLen(rs, i) - 1
		case c == '`':
			k := i + 1
			for k < n && rs[k] != '`' {
				k++
			}
			p.subs = append(p.subs, string(rs[i+1:min(k, n)]))
			word.WriteString(string(rs[i:min(k+1, n)]))
			inWord = true
			i = k
		case (c == '<' || c == '>') && i+1 < n && rs[i+1] == '(':
			k := matchParen(rs, i+1)
			p.subs = append(p.subs, string(rs[i+2:min(k, n)]))
			endWord()
			seg.words = append(seg.words, string(rs[i:min(k+1, n)]))
			i = k
		case c == '#' && !inWord:
			for i < n && rs[i] != '\n' {
				i++
			}
			i--
		case c == '\n' || c == ';':
			endPipe()
		case c == '&':
			if i+1 < n && rs[i+1] == '>' { // &> file
				endWord()
				pendingRedirect = 1
				i++
				if i+1 < n && rs[i+1] == '>' {
					i++
				}
				continue
			}
			if i+1 < n && rs[i+1] == '&' {
				i++
			}
			endPipe()
		case c == '|':
			if i+1 < n && rs[i+1] == '|' {
				i++
				endPipe()
				continue
			}
			if i+1 < n && rs[i+1] == '&' {
				i++
			}
			endSeg()
		case c == '>':
			// A word of digits right before > is a file descriptor.
			if inWord && isDigits(word.String()) {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < n && (rs[i+1] == '>' || rs[i+1] == '|') {
				i++
			}
			if i+1 < n && rs[i+1] == '&' { // >&2: a descriptor, not a file
				i++
				for i+1 < n && rs[i+1] >= '0' && rs[i+1] <= '9' {
					i++
				}
				continue
			}
			pendingRedirect = 1
		case c == '<':
			endWord()
			if i+2 < n && rs[i+1] == '<' && rs[i+2] == '<' {
				i += 2
				pendingRedirect = 2
				continue
			}
			for i+1 < n && (rs[i+1] == '<' || rs[i+1] == '-') {
				i++
			}
			pendingRedirect = 3 // input file or heredoc word: dropped
		case c == '(' || c == ')' || c == '{' && !inWord || c == '}' && !inWord:
			endPipe()
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	endPipe()
	return p
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// matchParen returns the index of the ) closing the ( at open, or the end.
func matchParen(rs []rune, open int) int {
	depth := 0
	for k := open; k < len(rs); k++ {
		switch rs[k] {
		case '\\':
			k++
		case '\'':
			for k++; k < len(rs) && rs[k] != '\''; k++ {
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return len(rs)
}

func hasIFS(rs []rune, i int) bool { return ifsLen(rs, i) > 0 }

func ifsLen(rs []rune, i int) int {
	s := string(rs[i:min(len(rs), i+6)])
	switch {
	case strings.HasPrefix(s, "${IFS}"):
		return 6
	case strings.HasPrefix(s, "$IFS"):
		return 4
	}
	return 0
}

// ansiC decodes the escapes of a $'...' word.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && strings.ContainsRune("0123456789abcdefABCDEF", rune(s[j])) {
				j++
			}
			if v, err := strconv.ParseUint(s[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			if v, err := strconv.ParseUint(s[i:j], 8, 8); err == nil {
				b.WriteByte(byte(v))
			}
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
