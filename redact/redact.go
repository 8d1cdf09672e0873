package redact

import (
	"regexp"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// Marker replaces the secret part of a value.
const Marker = "[REDACTED]"

// prefixed is what replaces a secret whose format has a public prefix.
func prefixed(p string) string { return p + "…" + Marker }

// rule masks one kind of secret. It runs only when the lower-cased text
// contains one of its triggers.
type rule struct {
	triggers []string
	re       func() *regexp.Regexp // compiled on first use
	repl     func(m []string) string
	// wordStart requires the match not to follow a letter, digit or _.
	// It stands for a leading \b, which would hide the literal prefix
	// that lets the regexp skip ahead quickly.
	wordStart bool
}

// knownPrefixes of sk- keys, longest first, kept in the masked form.
var skPrefixes = []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-", "sk-or-v1-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"}

var rules = []rule{
	{
		// PEM private keys, also when cut off before the END line.
		triggers: []string{"private key-----"},
		re:       lazyre.New(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`),
		repl: func(m []string) string {
			return "-----BEGIN " + m[1] + "PRIVATE KEY-----" + Marker + "-----END " + m[1] + "PRIVATE KEY-----"
		},
	},
	{
		// OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-), OpenRouter (sk-or-v1-).
		triggers:  []string{"sk-"},
		re:        lazyre.New(`sk-[A-Za-z0-9_-]{16,}`),
		wordStart: true,
		repl: func(m []string) string {
			for _, p := range skPrefixes {
				if strings.HasPrefix(m[0], p) {
					return prefixed(p)
				}
			}
			return prefixed("sk-")
		},
	},
	{
		triggers:  []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re:        lazyre.New(`(gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}`),
		wordStart: true,
		repl:      func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers: []string{"akia", "asia"},
		re:       lazyre.New(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),
		repl:     func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers:  []string{"xox"},
		re:        lazyre.New(`(xox[abposr]-)[A-Za-z0-9-]{10,}`),
		wordStart: true,
		repl:      func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers:  []string{"aiza"},
		re:        lazyre.New(`AIza[0-9A-Za-z_-]{35}`),
		wordStart: true,
		repl:      func(m []string) string { return prefixed("AIza") },
	},
	{
		// Authorization headers and bearer tokens of any format.
		triggers: []string{"bearer", "authorization", "x-api-key", "api-key:"},
		re:       lazyre.New(`(?i)\b((?:authorization|proxy-authorization|x-api-key|api-key)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?|bearer\s+)([A-Za-z0-9._~+/=:-]{8,})`),
		repl: func(m []string) string {
			if isPlaceholder(m[2]) {
				return m[0]
			}
			return m[1] + Marker
		},
	},
	{
		// AWS secret access keys in assignments.
		triggers: []string{"secret"},
		re:       lazyre.New(`(?i)\b(aws_?secret_?access_?key|secret_?access_?key|aws_?secret)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})\b`),
		repl:     func(m []string) string { return m[1] + m[2] + Marker },
	},
	{
		// Generic NAME=value / "name": "value" / name: value assignments
		// whose name says it holds a credential and whose value is long.
		triggers: []string{"key", "secret", "token", "passw", "pwd", "credential", "auth"},
		re:       lazyre.New(`(?i)\b([a-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|passwd|password|pwd|access[_-]?key|private[_-]?key|credentials?|auth)[a-z0-9_.-]*)(["']?\s*[:=]\s*["']?)([^\s"',;]{8,})`),
		repl: func(m []string) string {
			if isPlaceholder(m[3]) {
				return m[0]
			}
			return m[1] + m[2] + Marker
		},
	},
}

// isPlaceholder tells values that are not secrets: references to a
// variable, masks already applied, numbers, booleans.
func isPlaceholder(v string) bool {
	if strings.Contains(v, Marker) || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "<") ||
		strings.HasPrefix(v, "{") || strings.HasPrefix(v, "%") || strings.Trim(v, "*xX.•-") == "" {
		return true
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "undefined", "required", "optional", "redacted":
		return true
	}
	digits := true
	for _, r := range v {
		if r < '0' || r > '9' {
			digits = false
			break
		}
	}
	return digits
}

// String returns s with every secret it recognises masked.
func String(s string) string {
	if len(s) < 8 {
		return s
	}
	mask := triggered(s)
	if mask == 0 {
		return s
	}
	// Private keys span lines: mask them on the whole text first.
	if mask&1 != 0 {
		s = apply(&rules[0], s)
		mask &^= 1
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
		if m := triggered(line) &^ 1; m != 0 {
			for k := 1; k < len(rules); k++ {
				if m&(1<<k) != 0 {
					out = apply(&rules[k], out)
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

func apply(r *rule, s string) string {
	locs := r.re().FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, loc := range locs {
		if r.wordStart && loc[0] > 0 && isWordByte(s[loc[0]-1]) {
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

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// byFirst indexes the triggers by their first byte, so triggered scans the
// text once whatever the number of triggers.
var byFirst = func() (t [256][]trigger) {
	for i, r := range rules {
		for _, w := range r.triggers {
			t[w[0]] = append(t[w[0]], trigger{w, uint32(1) << i})
		}
	}
	return t
}()

type trigger struct {
	word string // lower case
	bit  uint32
}

// triggered returns a bit per rule whose trigger words occur in s,
// compared case-insensitively (ASCII).
func triggered(s string) uint32 {
	var mask uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		for _, t := range byFirst[c] {
			if mask&t.bit == 0 && hasPrefixFold(s[i:], t.word) {
				mask |= t.bit
			}
		}
	}
	return mask
}

func hasPrefixFold(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for j := 0; j < len(lowerPrefix); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerPrefix[j] {
			return false
		}
	}
	return true
}
