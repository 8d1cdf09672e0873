package approval

import (
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazy"
)

// lookAlikes maps letters that render like ASCII ones (Cyrillic, Greek)
// to the ASCII letter a reader sees.
var lookAlikes = lazy.Of(lookAlikeTable)

func lookAlikeTable() map[rune]rune {
	return map[rune]rune{
		'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'х': 'x', 'у': 'y', 'і': 'i', 'ѕ': 's', 'ј': 'j',
		'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l', 'к': 'k', 'м': 'm', 'т': 't', 'н': 'h',
		'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X',
		'ο': 'o', 'α': 'a', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'τ': 't', 'υ': 'u', 'ϲ': 'c',
		'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Χ': 'X',
	}
}

// normalizeText makes a command read the way it displays: fullwidth
// ASCII becomes ASCII (as NFKC does), look-alike letters become the
// ASCII letters they imitate, invisible characters go, and carriage
// returns and Unicode line separators become newlines, so a second
// command a terminal would hide is checked as the command it is.
// A # the shell reads inside a word (after a carriage return, a
// non-breaking space or an invisible character, or a fullwidth ＃) stays
// a word character, escaped, rather than starting a comment that would
// hide the rest of the line from the check.
func normalizeText(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '\r' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := byte(0) // the last byte written
	wordStart := true
	for _, r := range s {
		rawBreak := wordStart
		wordStart = isWordBreak(r)
		switch {
		case r == '#' || r == '\uff03':
			if (r != '#' || !rawBreak) && (last == 0 || isWordBreak(rune(last))) {
				b.WriteByte('\\')
			}
			b.WriteByte('#')
			last = '#'
			continue
		case r == '\r', r == '\u2028', r == '\u2029', r == '\u0085':
			b.WriteByte('\n')
		case r == '\u200b', r == '\u200c', r == '\u200d', r == '\u2060', r == '\ufeff', r == '\u00ad':
			continue
		case r >= '\uff01' && r <= '\uff5e':
			b.WriteRune(r - 0xfee0)
		case r == '\u3000', r == '\u00a0', r >= '\u2000' && r <= '\u200a':
			b.WriteByte(' ')
		default:
			if a, ok := lookAlikes.Get()[r]; ok {
				r = a
			}
			b.WriteRune(r)
		}
		if n := b.Len(); n > 0 {
			last = b.String()[n-1]
		}
	}
	return b.String()
}

// isWordBreak reports whether the shell starts a new word after r, where
// a # begins a comment.
func isWordBreak(r rune) bool {
	switch r {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}
