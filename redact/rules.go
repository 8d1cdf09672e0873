package redact

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// rules are the shapes without a fixed prefix, in the order they apply.
// Tokens with a vendor prefix are masked before them (tokens.go).
var rules = []rule{
	{
		// PEM private keys, also when cut off before the END line.
		triggers: []string{"private key-----"},
		whole:    true,
		re:       lazyre.New(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`),
		repl: func(m []string) string {
			return "-----BEGIN " + m[1] + "PRIVATE KEY-----" + Marker + "-----END " + m[1] + "PRIVATE KEY-----"
		},
	},
	{
		// Authorization headers of any scheme; the header name and the
		// scheme word stay. The credential stops at quotes and at the
		// punctuation of code around it ({ Authorization: token }).
		triggers: []string{"authorization"},
		re:       lazyre.New(`(?i)\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)([a-z][a-z0-9._+-]*\s+)?([^\s"'\\,;)\]}]{8,})`),
		repl: func(m []string) string {
			if isPlaceholder(m[3]) || m[2] == "" && authScheme(m[3]) {
				return m[0]
			}
			return m[1] + m[2] + Marker
		},
	},
	{
		// A bearer token outside a header. The 20-byte floor keeps "the
		// bearer of bad news".
		triggers: []string{"bearer"},
		re:       lazyre.New(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]{20,}=*)`),
		repl:     func(m []string) string { return m[1] + Marker },
	},
	{
		// API-key headers: one opaque value, no scheme word. "apikey"
		// only as headers spell it, so Go's APIKey: and JavaScript's
		// apiKey: fields are left to the assignment rule, which knows code.
		triggers: []string{"api-key", "apikey", "x-api-token", "x-auth-token", "x-access-token"},
		re:       lazyre.New(`\b((?:(?i:x-goog-api-key|x-api-key|x-api-token|x-auth-token|x-access-token|api-key)|apikey|Apikey|APIKEY)["']?\s*:\s*["']?)([^\s"'\\,;)\]}=][^\s"'\\,;)\]}]{7,})`),
		repl: func(m []string) string {
			if isPlaceholder(m[2]) {
				return m[0]
			}
			return m[1] + Marker
		},
	},
	{
		// The password of scheme://user:password@host, web URLs and
		// connection strings alike.
		triggers: []string{"://"},
		re:       lazyre.New(`([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/?#@"'<>\\]*):([^\s/@"'<>\\]+)@`),
		repl: func(m []string) string {
			if isPlaceholder(m[3]) {
				return m[0]
			}
			return m[1] + m[2] + ":" + Marker + "@"
		},
	},
	{
		// A bare credential as URL userinfo (https://TOKEN@github.com/...).
		// Short and word-like user names (git@, deploy-bot@) stay.
		triggers: []string{"://"},
		re:       lazyre.New(`(?i)\b((?:https?|wss?|git|ssh|ftps?|sftp)://)([^\s:@/"'<>\\]{8,})@`),
		repl: func(m []string) string {
			if isPlaceholder(m[2]) || structured(m[2]) {
				return m[0]
			}
			return m[1] + Marker + "@"
		},
	},
	{
		// AWS secret access keys in assignments.
		triggers: []string{"secret"},
		re:       lazyre.New(`(?i)\b(aws_?secret_?access_?key|secret_?access_?key|aws_?secret)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})\b`),
		repl:     func(m []string) string { return m[1] + m[2] + Marker },
	},
	{
		// Telegram bot tokens: [bot]<bot id>:<30 or more token bytes>.
		atFirsts:  "0123456789",
		atSecond:  ':',
		at:        colonAfterDigits,
		re:        lazyre.New(`(bot)?([0-9]{8,}):([A-Za-z0-9_-]{30,})`),
		wordStart: true,
		repl:      func(m []string) string { return m[1] + m[2] + ":" + Marker },
	},
	{
		// Zhipu keys: <32 lower-case hex>.<16 or more alphanumerics>.
		atFirsts: "0123456789abcdef",
		atSecond: '.',
		at:       dotAfterHex,
		fn:       maskZhipu,
	},
	{
		// NAME=value, "name": "value", name: value, where the name says
		// it holds a credential (assign.go).
		triggers: assignTriggers,
		fn:       maskAssignments,
	},
	{
		// A form body (k=v&k=v and nothing else): credential fields.
		gate:  isFormBody,
		whole: true,
		fn:    maskFormBody,
	},
}

// authScheme reports an authorization scheme word.
func authScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "negotiate", "ntlm":
		return true
	}
	return false
}

// colonAfterDigits reports a ':' at i+1 after 8 or more digits ending at i.
func colonAfterDigits(s string, i int) bool {
	if i+1 >= len(s) || s[i+1] != ':' {
		return false
	}
	n := 0
	for j := i; j >= 0 && isDigit(s[j]) && n < 8; j-- {
		n++
	}
	return n == 8
}

// dotAfterHex reports a '.' at i+1 after 32 lower-case hex digits ending
// at i.
func dotAfterHex(s string, i int) bool {
	return i+1 < len(s) && s[i+1] == '.' && hexBefore(s, i+1)
}

// hexBefore reports 32 lower-case hex digits right before i.
func hexBefore(s string, i int) bool {
	if i < 32 {
		return false
	}
	for j := i - 1; j >= i-32; j-- {
		if c := s[j]; !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var keyBody = newByteSet("A-Za-z0-9_.-")

// maskZhipu masks Zhipu API keys (id.secret). The id is exactly 32
// lower-case hex digits and the whole key stands alone, so content hashes
// in file names (<sha>.bundle) stay.
func maskZhipu(s string) string {
	var b strings.Builder
	prev := 0
	for i := strings.IndexByte(s, '.'); i >= 0; {
		next := i + 1
		if hexBefore(s, i) && (i == 32 || !keyBody.has(s[i-33])) {
			end := runEnd(s, i+1, &alnum)
			if end-(i+1) >= 16 && (end == len(s) || !keyBody.has(s[end])) {
				b.WriteString(s[prev : i-32])
				b.WriteString(Marker)
				prev, next = end, end
			}
		}
		k := strings.IndexByte(s[next:], '.')
		if k < 0 {
			break
		}
		i = next + k
	}
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}
