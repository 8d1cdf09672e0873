package harvest

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/redact"
)

// kind is how a credential file is read.
type kind int

const (
	none     kind = iota
	dotenv        // KEY=VALUE lines: every value
	secrets       // a configuration file named for secrets: every value
	config        // a configuration file: the credential fields
	keyFile       // a private key, or one opaque line
	netrc         // machine … login … password …
	pgpass        // host:port:database:user:password
	urlLines      // one URL a line (.git-credentials)
)

// dataExts are the extensions of configuration files ("" for none).
var dataExts = lazy.Of(dataExtSet)

func dataExtSet() map[string]bool {
	return map[string]bool{"": true, ".json": true, ".yml": true, ".yaml": true, ".toml": true, ".ini": true,
		".cfg": true, ".conf": true, ".properties": true, ".txt": true, ".xml": true}
}

// configNames are configuration files that carry credentials.
var configNames = lazy.Of(configNameSet)

func configNameSet() map[string]bool {
	return map[string]bool{".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true, ".pypirc": true,
		".s3cfg": true, ".boto": true, ".terraformrc": true, "terraform.rc": true, "auth.json": true}
}

// kindOf tells a credential file by its name and its directory's name.
func kindOf(parent, name string) kind {
	n := strings.ToLower(name)
	ext := filepath.Ext(n)
	stem := strings.TrimSuffix(n, ext)
	switch {
	case n == ".env" || strings.HasPrefix(n, ".env.") || ext == ".env" || n == ".envrc" || n == ".dev.vars":
		return dotenv
	case n == ".netrc" || n == "_netrc":
		return netrc
	case n == ".pgpass":
		return pgpass
	case n == ".git-credentials":
		return urlLines
	case strings.HasPrefix(n, "id_") && ext == "" || ext == ".pem" || ext == ".key" || ext == ".p8" || ext == ".ppk":
		return keyFile
	case configNames.Get()[n] || ext == ".tfvars" || parent == ".docker" && n == "config.json":
		return config
	case !dataExts.Get()[ext]:
		return none
	case strings.Contains(stem, "secret"):
		return secrets
	case strings.Contains(stem, "credential") || strings.Contains(stem, "service-account") ||
		strings.Contains(stem, "service_account") || strings.Contains(stem, "serviceaccount"):
		return config
	}
	return none
}

// extract returns the secrets a file of kind k holds.
func extract(k kind, text string) []string {
	switch k {
	case dotenv:
		return dotenvValues(text)
	case secrets, config:
		return configValues(text, k == secrets)
	case keyFile:
		return keyValues(text)
	case netrc:
		return netrcValues(text)
	case pgpass:
		return pgpassValues(text)
	case urlLines:
		var out []string
		for line := range strings.Lines(text) {
			if line = strings.TrimSpace(line); line != "" && line[0] != '#' {
				out = append(out, line)
			}
		}
		return out
	}
	return nil
}

// dotenvValues returns every value of a dotenv file: KEY=VALUE lines,
// export before them allowed, values quoted or not; a quoted value may
// span lines (a private key), an unquoted one ends at " #".
func dotenvValues(text string) []string {
	var out []string
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		line = strings.TrimPrefix(strings.TrimSpace(line), "export ")
		k, v, ok := strings.Cut(line, "=")
		if k = strings.TrimSpace(k); !ok || k == "" || strings.ContainsAny(k, " \t#") {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || v[0] != '"' && v[0] != '\'' {
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
			out = append(out, v)
			continue
		}
		q, body := v[0], v[1:]
		end := closingQuote(body, 0, q)
		for end < 0 && text != "" {
			// The value goes on over the next line.
			var next string
			next, text, _ = strings.Cut(text, "\n")
			from := len(body)
			body += "\n" + next
			end = closingQuote(body, from, q)
		}
		if end < 0 {
			end = len(body)
		}
		if q == '"' {
			out = append(out, unescape(body[:end]))
		} else {
			out = append(out, body[:end])
		}
	}
	return out
}

// closingQuote returns the index of the quote q closing s, looking from
// from on, -1 if none; a backslash escapes a double quote.
func closingQuote(s string, from int, q byte) int {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if q == '"' {
				i++
			}
		case q:
			return i
		}
	}
	return -1
}

// unescape reads the escapes of a double-quoted value: \n, \t, \", \\.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	r := strings.NewReplacer(`\n`, "\n", `\r`, "\r", `\t`, "\t", `\"`, `"`, `\\`, `\`)
	return r.Replace(s)
}

// keyValues returns the secret lines of a key file: the bodies of its PEM
// or OpenSSH private keys, the private lines of a PuTTY key, or its one
// opaque line.
func keyValues(text string) []string {
	if redact.HasPrivateKey(text) {
		return redact.PrivateKeyLines(text)
	}
	if strings.HasPrefix(text, "PuTTY-User-Key-File-") {
		return puttyLines(text)
	}
	t := strings.TrimSpace(text)
	if len(t) >= 16 && !strings.ContainsAny(t, " \t\r\n") && utf8.ValidString(t) {
		return []string{t}
	}
	return nil
}

// puttyLines returns the lines after "Private-Lines: N".
func puttyLines(text string) []string {
	var out []string
	want := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if want > 0 {
			out = append(out, line)
			want--
			continue
		}
		if n, ok := strings.CutPrefix(line, "Private-Lines:"); ok {
			want, _ = strconv.Atoi(strings.TrimSpace(n))
		}
	}
	return out
}

// netrcValues returns the password and account values of a .netrc.
func netrcValues(text string) []string {
	var out []string
	f := strings.Fields(text)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "password" || f[i] == "account" {
			out = append(out, f[i+1])
			i++
		}
	}
	return out
}

// pgpassValues returns the password fields of a .pgpass
// (host:port:database:user:password, \: and \\ escaped).
func pgpassValues(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		field, n := 0, 0
		var b strings.Builder
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case c == '\\' && i+1 < len(line):
				i++
				c = line[i]
			case c == ':' && field < 4:
				field++
				continue
			}
			if field == 4 {
				b.WriteByte(c)
				n++
			}
		}
		if field == 4 && n > 0 {
			out = append(out, b.String())
		}
	}
	return out
}

// configValues returns the secrets of a configuration file: its private
// keys, and the values of its credential fields or shaped like a
// credential, or with all every value. JSON is read as JSON; other files
// line by line as key = value, key: value or <key>value</key>.
func configValues(text string, all bool) []string {
	var out []string
	if redact.HasPrivateKey(text) {
		out = redact.PrivateKeyLines(text)
	}
	if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			return jsonValues(out, "", v, all)
		}
	}
	for line := range strings.Lines(text) {
		if k, v, ok := keyValue(line); ok {
			out = field(out, k, v, all)
		}
	}
	return out
}

func jsonValues(out []string, key string, v any, all bool) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			out = jsonValues(out, k, x, all)
		}
	case []any:
		for _, x := range v {
			out = jsonValues(out, key, x, all)
		}
	case string:
		out = field(out, key, v, all)
	}
	return out
}

// extraFields are credential fields whose names SecretField does not
// tell (docker's config.json).
var extraFields = []string{"identitytoken", "registrytoken"}

// field adds the secrets of the field key = v.
func field(out []string, key, v string, all bool) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return out
	}
	if redact.HasPrivateKey(v) {
		return append(out, redact.PrivateKeyLines(v)...)
	}
	lk := strings.ToLower(key)
	if all || redact.SecretField(key) || slices.Contains(extraFields, lk) || redact.TokenShaped(v) {
		out = append(out, v)
	}
	switch {
	case strings.HasSuffix(lk, "auth"):
		// npm's _auth and docker's auth: base64 of user:password.
		if d, ok := decodeBase64(v); ok {
			if _, pw, ok := strings.Cut(d, ":"); ok && pw != "" {
				out = append(out, pw)
			}
		}
	case strings.HasSuffix(lk, "_password"):
		// npm keeps the password in base64.
		if d, ok := decodeBase64(v); ok {
			out = append(out, d)
		}
	}
	return out
}

// decodeBase64 decodes printable text from base64, padded or not.
func decodeBase64(v string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(v); err == nil && printable(b) {
			return string(b), true
		}
	}
	return "", false
}

func printable(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// keyValue reads one line of a configuration file: key = value (ini,
// toml, .npmrc, properties, tfvars), key: value (yaml) or
// <key>value</key> (xml). Comments, sections and lines without a value
// are not pairs.
func keyValue(line string) (key, value string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
		return "", "", false
	}
	if line[0] == '<' {
		end := strings.IndexByte(line, '>')
		if end < 0 {
			return "", "", false
		}
		key = line[1:end]
		rest := line[end+1:]
		close := strings.Index(rest, "</"+key+">")
		if close < 0 {
			return "", "", false
		}
		return key, rest[:close], true
	}
	line = strings.TrimPrefix(line, "- ")
	line = strings.TrimPrefix(line, "export ")
	eq := strings.IndexByte(line, '=')
	co := strings.Index(line, ": ")
	switch {
	case co >= 0 && (eq < 0 || co < eq):
		key, value = line[:co], line[co+2:]
	case eq >= 0:
		key, value = line[:eq], line[eq+1:]
	default:
		return "", "", false
	}
	key = strings.TrimLeft(strings.Trim(key, " \t\"'"), ":")
	value = strings.TrimSpace(value)
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		if value[0] == '"' {
			value = unescape(value[1 : len(value)-1])
		} else {
			value = value[1 : len(value)-1]
		}
	} else if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	return key, value, key != "" && value != ""
}
