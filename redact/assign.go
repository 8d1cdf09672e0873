package redact

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Credential assignments: NAME=value, "name": "value", name: value,
// --name=value, 'NAME': 'value'. Whether one is masked depends on the name
// and on the value, as in upstream Hermes (agent/redact.py, the ENV, config,
// JSON, YAML and repr passes):
//
//   - the name must hold a credential word at a word boundary, so
//     Secretary, tokenizer, KEYBOARD and author are not names of secrets;
//   - a password word (password, passwd, pass, pw, passphrase) ending the
//     name masks any value; another strong word ending it (secret,
//     credential, auth, bearer, api_key, access_token, ...) masks any
//     value; a weaker word (token, key, or a strong word
//     inside the name: password_policy) masks only a value that looks
//     opaque, so max_tokens=4096 and token: CPU stay;
//   - a bare lower-case word (password=, token:) counts only at the start
//     of a line or as a query or form field, so "I have password=foo and
//     other things" is prose;
//   - references (${VAR}, $VAR, os.getenv(...), <your-key>), code naming
//     where the secret comes from (api_key=api_key, get_token()), and
//     values already masked stay; so do paths, unless a run in them reads
//     as random, for names other than passwords.

// assignTriggers are the words an assignment's name must contain.
var assignTriggers = []string{"key", "token", "secret", "pass", "pw", "credential", "auth", "bearer"}

// maskAssignments masks the values of the credential assignments of s.
func maskAssignments(s string) string {
	var b strings.Builder
	prev := 0
	for i := 0; i < len(s); {
		j := nextKeyword(s, i)
		if j < 0 {
			break
		}
		ks, ke := j, j
		for ks > 0 && keyBody.has(s[ks-1]) {
			ks--
		}
		for ke < len(s) && keyBody.has(s[ke]) {
			ke++
		}
		if a, ok := parseAssignment(s, ks, ke); ok && a.secret() {
			b.WriteString(s[prev:a.vs])
			b.WriteString(Marker)
			prev, i = a.ve, a.ve
			continue
		}
		i = ke
	}
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}

// nextKeyword returns the index of the next credential word at or after
// i, or -1.
func nextKeyword(s string, i int) int {
	for ; i < len(s); i++ {
		switch toLower(s[i]) {
		case 'k', 't', 's', 'p', 'c', 'a', 'b':
			for _, w := range assignTriggers {
				if hasPrefixFold(s[i:], w) {
					return i
				}
			}
		}
	}
	return -1
}

type assignment struct {
	key       string
	value     string
	sep       byte // ':' or '='
	quotedKey bool
	// quotedValue: the value is a string literal.
	quotedValue bool
	// anchored: the name starts the line (after indentation, a line
	// number, "export " or "- "); field: it follows ? & or ; (a URL
	// query or a form); flag: it is a command-line flag (--password=).
	anchored, field, flag bool
	vs, ve                int // the value's span
}

// parseAssignment reads "key sep value" where the key is s[ks:ke].
func parseAssignment(s string, ks, ke int) (assignment, bool) {
	a := assignment{key: s[ks:ke]}
	p := ke
	if q := quoteBefore(s, ks); q != "" && strings.HasPrefix(s[p:], q) {
		a.quotedKey = true
		p += len(q)
	}
	p = skipBlanks(s, p)
	if p >= len(s) {
		return a, false
	}
	switch s[p] {
	case '=':
		if p+1 < len(s) && s[p+1] == '=' {
			return a, false // a comparison
		}
		a.sep = '='
		p++
		if p < len(s) && s[p] == '>' {
			p++ // "key" => "value"
		}
	case ':':
		if strings.HasPrefix(s[p:], "://") || strings.HasPrefix(s[p:], "::") {
			return a, false
		}
		a.sep = ':'
		p++
		if p < len(s) && s[p] == '=' {
			p++ // key := value
		}
	default:
		return a, false
	}
	p = skipBlanks(s, p)
	a.vs, a.ve, a.quotedValue = valueSpan(s, p)
	if a.ve <= a.vs {
		return a, false
	}
	a.value = s[a.vs:a.ve]
	before := s[:ks]
	if a.quotedKey {
		before = before[:len(before)-len(quoteBefore(s, ks))]
	}
	a.anchored = lineStart(before)
	a.field = ks > 0 && strings.IndexByte("?&;", s[ks-1]) >= 0
	a.flag = strings.HasPrefix(a.key, "-")
	return a, true
}

// quoteBefore returns the quote that opens a key at ks: `"`, `'` or `\"`.
func quoteBefore(s string, ks int) string {
	switch {
	case ks >= 2 && s[ks-2] == '\\' && s[ks-1] == '"':
		return `\"`
	case ks >= 1 && (s[ks-1] == '"' || s[ks-1] == '\''):
		return s[ks-1 : ks]
	}
	return ""
}

func skipBlanks(s string, p int) int {
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	return p
}

// valueSpan returns the span of the value starting at p: up to the closing
// quote when it is quoted, else up to a space, a quote, or a delimiter of
// the surrounding syntax (, ; & ) ] } < >).
func valueSpan(s string, p int) (start, end int, quoted bool) {
	for _, q := range []string{`\"`, `"`, `'`, "`"} {
		if !strings.HasPrefix(s[p:], q) {
			continue
		}
		start := p + len(q)
		if e := strings.Index(s[start:], q); e >= 0 && !strings.ContainsAny(s[start:start+e], "\n\r") {
			return start, start + e, true
		}
		p = start
		break
	}
	e := p
	for e < len(s) {
		c := s[e]
		if c <= ' ' || strings.IndexByte("\"'`,;&)]}<>", c) >= 0 || c == '\\' && e+1 < len(s) && (s[e+1] == '"' || s[e+1] == '\'') {
			break
		}
		e++
	}
	return p, e, false
}

// lineStart reports whether what precedes a key on its line leaves the key
// at the start of a statement: indentation, a rendered line number (5|,
// 6:, 7-, or a number and a tab), "export ", "set ", a YAML "- ".
func lineStart(before string) bool {
	t := strings.TrimLeft(before, " \t")
	if n := len(t) - len(strings.TrimLeft(t, "0123456789")); n > 0 && n < len(t) && strings.IndexByte("|:-\t", t[n]) >= 0 {
		t = strings.TrimLeft(t[n+1:], " \t")
	}
	for _, p := range []string{"export ", "set ", "- "} {
		if strings.HasPrefix(t, p) {
			t = strings.TrimLeft(t[len(p):], " \t")
		}
	}
	return t == ""
}

// secret decides whether the assignment's value is masked.
func (a assignment) secret() bool {
	name := strings.TrimLeft(a.key, "-")
	kind := keyKind(name)
	if kind == notSecret {
		return false
	}
	if !a.quotedKey && !a.flag {
		compound := len(splitWords(name)) > 1
		caps := !strings.ContainsFunc(name, func(r rune) bool { return 'a' <= r && r <= 'z' })
		if a.sep == ':' && !(a.anchored || compound) || a.sep == '=' && !(caps || compound || a.anchored || a.field) {
			return false
		}
	}
	v := a.value
	switch {
	case isPlaceholder(v) || a.codeRef(name):
		return false
	case kind == passwordKey:
		return true
	case looksPath(v) && !randomRun(v):
		return false
	case kind == strongKey:
		return true
	}
	return opaque(v)
}

// codeRef reports a value that is code naming where a secret comes from,
// not the secret: a call (get_token(), os.urandom(32)) or a variable
// (api_key=api_key, self.token = settings.API_TOKEN, APIKey: apiKey). It
// holds for unquoted values under names with lower-case letters (code,
// not an environment dump) when the value reads as words, so an opaque
// value (fakePass123, hunter2) is still masked.
func (a assignment) codeRef(name string) bool {
	v := a.value
	if a.quotedValue || !strings.ContainsFunc(name, func(r rune) bool { return 'a' <= r && r <= 'z' }) {
		return false
	}
	if i := strings.IndexByte(v, '('); i > 0 && identPath(v[:i]) {
		return true
	}
	if !identPath(v) || !structured(v) {
		return false
	}
	if strings.EqualFold(v, name) || strings.ContainsAny(v, "_.") {
		return true
	}
	for i := 1; i < len(v); i++ {
		if isLower(v[i-1]) && isUpper(v[i]) {
			return true // camelCase
		}
	}
	return false
}

// identPath reports an identifier or a dotted path of them.
func identPath(v string) bool {
	if v == "" || isDigit(v[0]) || v[0] == '.' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isWordByte(c) && c != '.' {
			return false
		}
	}
	return true
}

type keyClass int

const (
	notSecret   keyClass = iota
	weakKey              // token, key, or a strong word not ending the name
	strongKey            // secret, credential, auth, bearer, api_key, ... ending the name
	passwordKey          // password, passwd, pass, pw, passphrase ending the name
)

// The words keyKind reads in a name, built on first use.
var keyWords = lazy.Of(buildKeyWords)

type keyWordSets struct {
	password, strong, weak map[string]bool
	// compoundHeads make a strong compound with a following key, token
	// or secret (api_key, access_token, session-token, clientSecret).
	compoundHeads map[string]bool
}

func buildKeyWords() *keyWordSets {
	return &keyWordSets{
		password: map[string]bool{"password": true, "passwd": true, "pass": true, "pw": true, "passphrase": true},
		strong: map[string]bool{"secret": true, "credential": true, "auth": true, "bearer": true,
			// concatenated compounds (ngrok authtoken, tailscale authkey, minio secretkey)
			"apikey": true, "apitoken": true, "authtoken": true, "authkey": true, "secretkey": true, "accesstoken": true,
			"accesskey": true, "refreshtoken": true, "sessiontoken": true, "sessionkey": true, "idtoken": true,
			"privatekey": true, "bearertoken": true, "clientsecret": true, "keymaterial": true},
		weak: map[string]bool{"token": true, "key": true},
		compoundHeads: map[string]bool{"api": true, "auth": true, "access": true, "refresh": true, "session": true,
			"id": true, "bearer": true, "secret": true, "private": true, "client": true},
	}
}

// keyKind classifies a name by the credential words it holds.
func keyKind(name string) keyClass {
	sets := keyWords.Get()
	words := splitWords(name)
	kind := notSecret
	for i, w := range words {
		w = singular(w)
		last := i == len(words)-1
		var c keyClass
		switch {
		case sets.password[w]:
			c = passwordKey
		case sets.strong[w]:
			c = strongKey
		case sets.weak[w]:
			c = weakKey
			if i > 0 && sets.compoundHeads[singular(words[i-1])] || w == "key" && i+1 < len(words) && words[i+1] == "material" {
				c = strongKey
				last = last || w == "key" && i+2 == len(words)
			}
		default:
			continue
		}
		if c > weakKey && !last {
			c = weakKey
		}
		kind = max(kind, c)
	}
	return kind
}

// singular drops one plural s (secrets, tokens, credentials).
func singular(w string) string {
	if len(w) > 3 && w[len(w)-1] == 's' && w != "pass" {
		return w[:len(w)-1]
	}
	return w
}

// splitWords splits a name into lower-case words at _ . - and at
// camelCase and acronym boundaries: clientSecret, APIToken, api_key.
func splitWords(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
		start = end
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '.' || c == '-' || c == ' ':
			flush(i)
			start = i + 1
		case i > start && isUpper(c) && (isLower(name[i-1]) || isDigit(name[i-1])):
			flush(i) // clientSecret
		case i > start && isUpper(c) && isUpper(name[i-1]) && i+1 < len(name) && isLower(name[i+1]):
			flush(i) // APIToken
		}
	}
	flush(len(name))
	return words
}

// isPlaceholder tells values that are not secrets: references to a
// variable or a lookup, masks already applied, numbers, booleans, YAML
// block indicators, templates.
func isPlaceholder(v string) bool {
	// A value's span ends before "]", so a mask inside it reads "[REDACTED".
	if strings.Contains(v, Marker[:len(Marker)-1]) || strings.Trim(v, "*xX.•-") == "" || strings.Trim(v, "|>-+") == "" {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '[', '%', '!':
		return true
	}
	lower := strings.ToLower(v)
	for _, p := range []string{"os.getenv", "os.lookupenv", "os.environ", "process.env", "system.getenv", "env::var", "std::env", "env(", "env[", "getenv("} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	switch lower {
	case "true", "false", "null", "none", "nil", "undefined", "required", "optional", "redacted":
		return true
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return false
		}
	}
	return true
}

// looksPath reports a file path (/run/secrets/db, ~/.ssh/id_rsa,
// config/creds.json, C:\keys).
func looksPath(v string) bool {
	switch {
	case v[0] == '/' || v[0] == '~' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"):
		return true
	case len(v) > 2 && isLetter(v[0]) && v[1] == ':' && (v[2] == '\\' || v[2] == '/'):
		return true
	}
	return strings.IndexByte(v, '/') > 0
}

// sensitiveFields are the form fields whose values a form body masks
// whatever their shape (upstream's _SENSITIVE_QUERY_PARAMS).
var sensitiveFields = lazy.Of(sensitiveFieldSet)

func sensitiveFieldSet() map[string]bool {
	return map[string]bool{
		"access_token": true, "refresh_token": true, "id_token": true, "token": true, "api_key": true, "apikey": true,
		"client_secret": true, "password": true, "auth": true, "jwt": true, "session": true, "secret": true, "key": true,
		"code": true, "signature": true, "x-amz-signature": true, "x-goog-signature": true, "sig": true,
	}
}

// isFormBody reports a text that is a form body and nothing else:
// name=value pairs joined by &, without spaces or lines.
func isFormBody(s string) bool {
	if strings.IndexByte(s, '&') < 0 || strings.IndexByte(s, '=') < 0 {
		return false
	}
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, " \t\n\r") {
		return false
	}
	for pair := range strings.SplitSeq(t, "&") {
		name, _, ok := strings.Cut(pair, "=")
		if !ok || name == "" || !isLetter(name[0]) && name[0] != '_' || strings.ContainsFunc(name, func(r rune) bool {
			return r > 0x7f || !keyBody.has(byte(r))
		}) {
			return false
		}
	}
	return true
}

// maskFormBody masks the sensitive fields of a form body.
func maskFormBody(s string) string {
	lead := len(s) - len(strings.TrimLeft(s, " \t\n\r"))
	t := strings.TrimSpace(s)
	pairs := strings.Split(t, "&")
	changed := false
	for i, pair := range pairs {
		name, value, _ := strings.Cut(pair, "=")
		if value != "" && sensitiveFields.Get()[strings.ToLower(name)] && !strings.Contains(value, Marker) {
			pairs[i] = name + "=" + Marker
			changed = true
		}
	}
	if !changed {
		return s
	}
	return s[:lead] + strings.Join(pairs, "&") + s[lead+len(t):]
}
