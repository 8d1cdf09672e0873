package untrusted

import (
	"fmt"
	"unicode/utf8"
)

// Truncate shortens text longer than limit characters to its first 70%
// and last 20% with a marker between them naming what was cut, so a huge
// file costs a bounded, predictable part of the prompt instead of failing.
// name labels the marker ("AGENTS.md"). It reports whether it cut.
func Truncate(text string, limit int, name string) (string, bool) {
	n := utf8.RuneCountInString(text)
	if limit <= 0 || n <= limit {
		return text, false
	}
	head, tail := limit*7/10, limit*2/10
	runes := []rune(text)
	marker := fmt.Sprintf("\n\n[...truncated %s: kept the first %d and last %d of %d characters; read the file itself for the rest...]\n\n",
		name, head, tail, n)
	return string(runes[:head]) + marker + string(runes[n-tail:]), true
}
