package redact

// byteSet is a set of bytes.
type byteSet [4]uint64

// newByteSet builds a set from a description such as "A-Za-z0-9_-": ranges
// a-b and single bytes ("-" last stands for itself). It returns a value,
// so that a package-level set takes no allocation at start.
func newByteSet(desc string) byteSet {
	var s byteSet
	for i := 0; i < len(desc); i++ {
		lo, hi := desc[i], desc[i]
		if i+2 < len(desc) && desc[i+1] == '-' {
			hi = desc[i+2]
			i += 2
		}
		for c := int(lo); c <= int(hi); c++ {
			s[c>>6] |= 1 << (c & 63)
		}
	}
	return s
}

func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// pairSet is a set of byte pairs: a first filter for "can a word start
// here" that costs one bit test per byte of text.
type pairSet [1 << 16 / 64]uint64

func (p *pairSet) add(a, b byte) {
	k := uint(a)<<8 | uint(b)
	p[k>>6] |= 1 << (k & 63)
}

func (p *pairSet) has(a, b byte) bool {
	k := uint(a)<<8 | uint(b)
	return p[k>>6]&(1<<(k&63)) != 0
}

// addFold adds the first two bytes of w in every letter case.
func (p *pairSet) addFold(w string) {
	for _, a := range cases(w[0]) {
		for _, b := range cases(w[1]) {
			p.add(a, b)
		}
	}
}

func cases(c byte) []byte {
	switch {
	case 'a' <= c && c <= 'z':
		return []byte{c, c - 'a' + 'A'}
	case 'A' <= c && c <= 'Z':
		return []byte{c, c - 'A' + 'a'}
	}
	return []byte{c}
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// joinerAt returns the length of the joiner at i, 0 if there is none. A
// joiner is what can split a secret in text without being part of it: a
// line break or tab, another control character, an ANSI escape sequence,
// a zero-width character (U+200B to U+200F, U+2060, U+FEFF), or the
// escaped forms of these that JSON and logs print (\n, \r, \t, \\,
// \u200b). lineBreak reports a line break, tab or their escapes: the
// places where one token may end and unrelated text begin.
func joinerAt(s string, i int) (n int, lineBreak bool) {
	c := s[i]
	switch {
	case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
		return 2, true
	case c == '\n' || c == '\r' || c == '\t':
		return 1, true
	case c == 0x1b:
		return escapeLen(s, i), false
	case c < 0x20 || c == 0x7f:
		return 1, false
	case c == '\\' && i+1 < len(s):
		switch s[i+1] {
		case 'n', 'r', 't':
			return 2, true
		case '\\':
			return 2, false
		case 'u':
			if i+6 <= len(s) && isZeroWidthEscape(s[i+2:i+6]) {
				return 6, false
			}
		}
	case c == 0xe2 && i+2 < len(s):
		if s[i+1] == 0x80 && 0x8b <= s[i+2] && s[i+2] <= 0x8f || s[i+1] == 0x81 && s[i+2] == 0xa0 {
			return 3, false
		}
	case c == 0xef && i+2 < len(s) && s[i+1] == 0xbb && s[i+2] == 0xbf:
		return 3, false
	}
	return 0, false
}

// skipJoiners returns the end of the run of joiners starting at i (i when
// there is none) and whether the run holds a line break.
func skipJoiners(s string, i int) (int, bool) {
	lineBreak := false
	for i < len(s) {
		n, lb := joinerAt(s, i)
		if n == 0 {
			break
		}
		i += n
		lineBreak = lineBreak || lb
	}
	return i, lineBreak
}

func isZeroWidthEscape(h string) bool {
	switch h {
	case "200b", "200c", "200d", "200e", "200f", "2060", "feff", "200B", "200C", "200D", "200E", "200F", "FEFF":
		return true
	}
	return false
}

// escapeLen is the length of the escape sequence at s[i] == ESC: a CSI
// sequence (ESC [ parameters final), or ESC and one byte.
func escapeLen(s string, i int) int {
	if i+1 >= len(s) {
		return 1
	}
	if s[i+1] != '[' {
		if c := s[i+1]; 0x40 <= c && c <= 0x5f {
			return 2
		}
		return 1
	}
	j := i + 2
	for j < len(s) && 0x20 <= s[j] && s[j] <= 0x3f {
		j++
	}
	if j < len(s) && 0x40 <= s[j] && s[j] <= 0x7e {
		return j + 1 - i
	}
	return 1
}

// joinerStart holds the bytes a joiner can start with.
var joinerStart = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t[0x7f], t['\\'], t[0xe2], t[0xef] = true, true, true, true
	return t
}()
