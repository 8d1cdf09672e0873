package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// forms returns the ways text can carry secret: the secret itself,
// reversed (rev), in hex, lower and upper case (xxd -p, od), URL-escaped
// (query and path escaping, upper- and lower-case %XX), JSON-escaped, and
// in base64, standard and URL alphabets, padded and not. For base64 it also
// returns, for each of the three alignments the secret can have inside a
// longer encoded text, the characters that depend on the secret's bytes
// alone; those appear whatever comes before and after it.
func forms(secret string) []string {
	b := []byte(secret)
	out := []string{
		secret,
		reverse(secret),
		hex.EncodeToString(b),
		strings.ToUpper(hex.EncodeToString(b)),
		url.QueryEscape(secret),
		url.PathEscape(secret),
		lowerEscapes(url.QueryEscape(secret)),
		lowerEscapes(url.PathEscape(secret)),
	}
	if j, err := json.Marshal(secret); err == nil {
		out = append(out, string(j[1:len(j)-1]))
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(b))
		raw := enc.WithPadding(base64.NoPadding)
		for a := range 3 {
			x := make([]byte, a+len(b))
			copy(x[a:], b)
			e := raw.EncodeToString(x)
			// Character k carries bits [6k, 6k+6) of the encoded bytes;
			// the secret holds bits [8a, 8a+8n).
			from, to := (8*a+5)/6, (8*a+8*len(b))/6
			out = append(out, e[from:to])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reverse reverses s by characters, as rev does.
func reverse(s string) string {
	r := make([]byte, 0, len(s))
	for len(s) > 0 {
		_, n := utf8.DecodeLastRuneInString(s)
		r = append(r, s[len(s)-n:]...)
		s = s[:len(s)-n]
	}
	return string(r)
}

// lowerEscapes writes the %XX escapes of s in lower case.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = toLower(b[i+1]), toLower(b[i+2])
		}
	}
	return string(b)
}
