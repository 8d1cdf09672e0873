package redact

import "iter"

// structured reports text made of words, numbers and short codes joined by
// punctuation: a model name (anthropic/claude-sonnet-4), a host, a path, a
// version, a region, a date. Each run of letters and digits is a word
// shorter than 12 letters, a number, or at most 4 characters. Such text is
// not taken for a secret; one long word or a run mixing letters and digits
// (A9f3kZq7, hunter2hunter2, deadbeefcafebabe) is.
func structured(s string) bool {
	for w := range alnumRuns(s) {
		if !plainRun(w) {
			return false
		}
	}
	return true
}

// alnumRuns yields the runs of letters and digits in s.
func alnumRuns(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i <= len(s); i++ {
			if i < len(s) && (isLetter(s[i]) || isDigit(s[i])) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && !yield(s[start:i]) {
				return
			}
			start = -1
		}
	}
}

func plainRun(w string) bool {
	if len(w) <= 4 {
		return true
	}
	letters, digits := 0, 0
	for i := 0; i < len(w); i++ {
		if isDigit(w[i]) {
			digits++
		} else {
			letters++
		}
	}
	return digits == 0 && letters < 12 || letters == 0
}

// opaque reports a value shaped like a credential rather than a word, a
// number or a path: 8 bytes or more, not structured.
func opaque(v string) bool { return len(v) >= 8 && !structured(v) }

// randomRun reports a run of 12 or more letters and digits that reads as
// random: it mixes letters and digits, or changes from lower to upper case
// three times or more (wJalrXUtnFEMI). Paths hold words, numbers and
// names such as LaunchAgents or id_ed25519, not such runs.
func randomRun(s string) bool {
	for w := range alnumRuns(s) {
		if len(w) >= 12 && looksRandom(w) {
			return true
		}
	}
	return false
}

func looksRandom(w string) bool {
	letters, digits, humps := 0, 0, 0
	for i := 0; i < len(w); i++ {
		switch {
		case isDigit(w[i]):
			digits++
		default:
			letters++
			if i > 0 && isLower(w[i-1]) && isUpper(w[i]) {
				humps++
			}
		}
	}
	return letters > 0 && digits > 0 || humps >= 3
}
