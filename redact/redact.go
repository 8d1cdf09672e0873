package redact

import (
	mathbits "math/bits"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// Marker replaces the secret part of a value.
const Marker = "[REDACTED]"

// prefixed is what replaces a secret whose format has a public prefix.
func prefixed(p string) string { return p + "…" + Marker }

// String returns s with every secret it recognises by its shape masked:
// tokens with a vendor prefix, private keys, authorization headers,
// passwords in URLs, credential assignments. It knows no secret values;
// a Redactor adds those.
func String(s string) string {
	if len(s) < 8 {
		return s
	}
	s, mask := scan(s)
	if mask == 0 {
		return s
	}
	// Private keys and form bodies are judged on the whole text.
	for k := range rules {
		if r := &rules[k]; r.whole && mask&(1<<k) != 0 {
			s = r.run(s)
			mask &^= 1 << k
		}
	}
	if mask == 0 {
		return s
	}
	// The other rules match within a line. Running them line by line on
	// the lines that hold a trigger keeps the regexps on short inputs,
	// where Go's matcher is fastest, and skips ordinary lines entirely.
	var b strings.Builder
	changed := false
	rest := s
	for len(rest) > 0 {
		i := strings.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = ""
		}
		out := line
		if m := triggered(line) & mask; m != 0 {
			for k := range rules {
				if m&(1<<k) != 0 {
					out = rules[k].run(out)
				}
			}
		}
		if out != line && !changed {
			changed = true
			b.Grow(len(s))
			b.WriteString(s[:len(s)-len(rest)-len(line)])
		}
		if changed {
			b.WriteString(out)
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

// rule masks one kind of secret that has no fixed prefix. It runs only on
// text that holds one of its triggers (compared ignoring case), has a pair
// of bytes at which at reports a start, or passes its gate.
type rule struct {
	triggers []string
	// at is asked, where a byte of atFirsts is followed by atSecond
	// ("0:" "1:" ...), whether the rule's secret can end or start there.
	atFirsts string
	atSecond byte
	at       func(s string, i int) bool
	gate     func(s string) bool
	// re and repl mask the matches of a regular expression; fn is a
	// hand-written masker instead.
	re   *lazyre.Regexp // compiled on first use
	repl func(m []string) string
	fn   func(s string) string
	// wordStart requires the match not to follow a letter, digit or _.
	// It stands for a leading \b, which would hide the literal prefix
	// that lets the regexp skip ahead quickly.
	wordStart bool
	// whole runs the rule on the whole text rather than line by line.
	whole bool
}

func (r *rule) run(s string) string {
	if r.fn != nil {
		return r.fn(s)
	}
	locs := r.re.Get().FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, loc := range locs {
		if r.wordStart && !wordStartAt(s, loc[0]) {
			continue
		}
		m := make([]string, len(loc)/2)
		for k := range m {
			if loc[2*k] >= 0 {
				m[k] = s[loc[2*k]:loc[2*k+1]]
			}
		}
		b.WriteString(s[prev:loc[0]])
		b.WriteString(r.repl(m))
		prev = loc[1]
	}
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}

type trigger struct {
	word string // lower case
	bit  uint64
}

// scanIndex holds the tables the scan reads, built from rules and tokens
// on first use: a process that never redacts (the sandbox helper of each
// command, --version) does not build them.
type scanIndex struct {
	// triggersByFirst indexes the trigger words by their first byte.
	triggersByFirst [256][]trigger
	// atByFirst holds, per byte, the rules with an at pair starting with it.
	atByFirst [256]uint64
	// scanPairs holds the first two bytes of every token prefix and, in
	// every letter case, of every trigger word, and the rules' at pairs.
	scanPairs pairSet
	// tokensByFirst lists, per first byte, the tokens whose prefix starts
	// with it, longest prefix first, so "sk_live_" is tried before "sk_".
	tokensByFirst [256][]*token
	// tokenPairs holds the first two bytes of every token prefix.
	tokenPairs pairSet
}

var scanTables = lazy.Of(buildScanIndex)

func buildScanIndex() *scanIndex {
	x := &scanIndex{}
	for i, r := range rules {
		for _, w := range r.triggers {
			x.triggersByFirst[w[0]] = append(x.triggersByFirst[w[0]], trigger{w, uint64(1) << i})
			x.scanPairs.addFold(w)
		}
		for _, c := range []byte(r.atFirsts) {
			x.atByFirst[c] |= 1 << i
			x.scanPairs.add(c, r.atSecond)
		}
	}
	for i := range tokens {
		tk := &tokens[i]
		c := tk.prefix[0]
		x.tokensByFirst[c] = append(x.tokensByFirst[c], tk)
		x.scanPairs.add(tk.prefix[0], tk.prefix[1])
		x.tokenPairs.add(tk.prefix[0], tk.prefix[1])
	}
	for c := range x.tokensByFirst {
		l := x.tokensByFirst[c]
		for i := 1; i < len(l); i++ {
			for j := i; j > 0 && len(l[j].prefix) > len(l[j-1].prefix); j-- {
				l[j], l[j-1] = l[j-1], l[j]
			}
		}
	}
	return x
}

// triggersAt returns the bits of the rules triggered at s[i], leaving out
// those in mask.
func triggersAt(x *scanIndex, s string, i int, mask uint64) uint64 {
	for _, t := range x.triggersByFirst[toLower(s[i])] {
		if mask&t.bit == 0 && hasPrefixFold(s[i:], t.word) {
			mask |= t.bit
		}
	}
	for bits := x.atByFirst[s[i]] &^ mask; bits != 0; bits &= bits - 1 {
		k := mathbits.TrailingZeros64(bits)
		if rules[k].at(s, i) {
			mask |= 1 << k
		}
	}
	return mask
}

// scan masks the tokens of s and reports, one bit per rule, which rules
// have a trigger in s. It is one pass over the text: a byte pair table
// skips the positions where neither a token nor a trigger starts.
func scan(s string) (string, uint64) {
	x := scanTables.Get()
	var mask uint64
	var b strings.Builder
	prev := 0
	for i := 0; i+1 < len(s); i++ {
		if !x.scanPairs.has(s[i], s[i+1]) {
			continue
		}
		if tk, end := tokenAt(x, s, i); tk != nil {
			if prev == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[prev:i])
			b.WriteString(tk.mask(s[i:end]))
			prev = end
			i = end - 1
			continue
		}
		mask = triggersAt(x, s, i, mask)
	}
	mask |= gated(s)
	if prev == 0 {
		return s, mask
	}
	b.WriteString(s[prev:])
	return b.String(), mask
}

// triggered returns a bit per rule whose trigger occurs in s.
func triggered(s string) uint64 {
	x := scanTables.Get()
	var mask uint64
	for i := 0; i+1 < len(s); i++ {
		if !x.scanPairs.has(s[i], s[i+1]) {
			continue
		}
		mask = triggersAt(x, s, i, mask)
	}
	return mask | gated(s)
}

// gated returns a bit per rule whose gate passes s.
func gated(s string) uint64 {
	var mask uint64
	for k := range rules {
		if g := rules[k].gate; g != nil && g(s) {
			mask |= 1 << k
		}
	}
	return mask
}

func hasPrefixFold(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for j := 0; j < len(lowerPrefix); j++ {
		if toLower(s[j]) != lowerPrefix[j] {
			return false
		}
	}
	return true
}
