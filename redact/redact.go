package redact

import (
	"regexp"
	"strings"
)

// Marker replaces the secret part of a value.
const Marker = "[REDACTED]"

// prefixed is what replaces a secret whose format has a public prefix.
func prefixed(p string) string { return p + "…" + Marker }

// rule masks one kind of secret. It runs only when the lower-cased text
// contains one of its triggers.
type rule struct {
	triggers []string
	re       *regexp.Regexp
	repl     func(m []string) string
}

// knownPrefixes of sk- keys, longest first, kept in the masked form.
var skPrefixes = []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-", "sk-or-v1-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"}

var rules = []rule{
	{
		// PEM private keys, also when cut off before the END line.
		triggers: []string{"private key-----"},
		re:       regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`),
		repl: func(m []string) string {
			return "-----BEGIN " + m[1] + "PRIVATE KEY-----" + Marker + "-----END " + m[1] + "PRIVATE KEY-----"
		},
	},
	{
		// OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-), OpenRouter (sk-or-v1-).
		triggers: []string{"sk-"},
		re:       regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`),
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
		triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re:       regexp.MustCompile(`\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}`),
		repl:     func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers: []string{"akia", "asia"},
		re:       regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`),
		repl:     func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers: []string{"xox"},
		re:       regexp.MustCompile(`\b(xox[abposr]-)[A-Za-z0-9-]{10,}`),
		repl:     func(m []string) string { return prefixed(m[1]) },
	},
	{
		triggers: []string{"aiza"},
		re:       regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`),
		repl:     func(m []string) string { return prefixed("AIza") },
	},
	{
		// Authorization headers and bearer tokens of any format.
		triggers: []string{"bearer", "authorization", "x-api-key", "api-key:"},
		re:       regexp.MustCompile(`(?i)\b((?:authorization|proxy-authorization|x-api-key|api-key)["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?|bearer\s+)([A-Za-z0-9._~+/=:-]{8,})`),
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
		re:       regexp.MustCompile(`(?i)\b(aws_?secret_?access_?key|secret_?access_?key|aws_?secret)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})\b`),
		repl:     func(m []string) string { return m[1] + m[2] + Marker },
	},
	{
		// Generic NAME=value / "name": "value" / name: value assignments
		// whose name says it holds a credential and whose value is long.
		triggers: []string{"key", "secret", "token", "passw", "pwd", "credential", "auth"},
		re:       regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:api[_-]?key|apikey|secret|token|passwd|password|pwd|access[_-]?key|private[_-]?key|credentials?|auth)[a-z0-9_.-]*)(["']?\s*[:=]\s*["']?)([^\s"',;]{8,})`),
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
	lower := strings.ToLower(s)
	for i := range rules {
		r := &rules[i]
		hit := false
		for _, t := range r.triggers {
			if strings.Contains(lower, t) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		out := r.re.ReplaceAllStringFunc(s, func(m string) string {
			return r.repl(r.re.FindStringSubmatch(m))
		})
		if out != s {
			s = out
			lower = strings.ToLower(s)
		}
	}
	return s
}
