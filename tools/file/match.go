package file

import (
	"strings"
	"unicode"
)

// span is a byte range [start, end) in a file's content.
type span struct{ start, end int }

// findExact returns every non-overlapping occurrence of needle.
func findExact(content, needle string) []span {
	var out []span
	for i := 0; ; {
		j := strings.Index(content[i:], needle)
		if j < 0 {
			return out
		}
		out = append(out, span{i + j, i + j + len(needle)})
		i += j + len(needle)
	}
}

// findLoose matches needle ignoring differences in whitespace: every run
// of spaces, tabs and newlines counts as one space, and leading and
// trailing whitespace of the needle is ignored. It catches the usual
// mismatches of an edit written from memory (tabs against spaces, a
// re-indented block, trailing blanks) while still matching only the same
// words in the same order.
func findLoose(content, needle string) []span {
	nn, _ := collapse(needle)
	nn = strings.TrimSpace(nn)
	if nn == "" {
		return nil
	}
	nc, starts := collapse(content)
	var out []span
	for i := 0; ; {
		j := strings.Index(nc[i:], nn)
		if j < 0 {
			return out
		}
		s, e := i+j, i+j+len(nn)
		out = append(out, span{starts[s], starts[e]})
		i = e
	}
}

// collapse returns s with whitespace runs replaced by one space, and for
// each byte of the result (plus one past the end) its offset in s. A
// collapsed space maps to the start of its run, so a match that ends just
// before whitespace ends exactly where its last word does.
func collapse(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	starts := make([]int, 0, len(s)+1)
	inSpace := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
				starts = append(starts, i)
				inSpace = true
			}
			continue
		}
		inSpace = false
		n := b.Len()
		b.WriteRune(r)
		for k := n; k < b.Len(); k++ {
			starts = append(starts, i+(k-n))
		}
	}
	starts = append(starts, len(s))
	return b.String(), starts
}
