package redact

import "strings"

// maxTokenShaped is the longest value TokenShaped accepts but for a
// private key: beyond it a value is a blob, not a credential.
const maxTokenShaped = 4096

// TokenShaped reports a value that is a credential by its shape alone,
// whatever the name of the variable or field holding it:
//
//   - a token of a known format (ghp_…, sk-…, xoxb-…, AKIA…, a JWT, …)
//     that makes up the whole value;
//   - a PEM private key, however long;
//   - an opaque random string: 16 to 4096 characters of the base64 and
//     base64url alphabets (padding only at the end, not starting like a
//     path or an option) holding a run of 16 or more letters and digits
//     that reads as random. Such a run is not hexadecimal, and changes
//     between upper case, lower case and digits often: in at least 2 of
//     5 places when it mixes cases and digits, 1 of 4 with digits in one
//     case, 1 of 2 with fewer than two digits.
//
// Words, identifiers (MyProject2024Release, ThisIsCamelCase), paths,
// host and pod names (web-7d9f8b6c4-x2k9p), versions, commit hashes,
// UUIDs and other hexadecimal digests are not token-shaped: hex is left
// out on purpose, as it names commits and content far more often than it
// holds a key.
func TokenShaped(v string) bool {
	if HasPrivateKey(v) {
		return true
	}
	v = strings.TrimSpace(v)
	if len(v) < 16 || len(v) > maxTokenShaped {
		return false
	}
	if tk, end := tokenAt(scanTables.Get(), v, 0); tk != nil && end == len(v) {
		return true
	}
	return opaqueRandom(v)
}

// SecretVariable reports an environment variable that holds a secret: its
// name says so (SecretName) or its value is a credential by shape
// (TokenShaped).
func SecretVariable(name, value string) bool {
	return SecretName(name) || TokenShaped(value)
}

// HasPrivateKey reports a PEM private key in s ("-----BEGIN … PRIVATE
// KEY-----").
func HasPrivateKey(s string) bool {
	i := strings.Index(s, "-----BEGIN ")
	return i >= 0 && strings.Contains(s[i:], "PRIVATE KEY-----")
}

var base64Body = newByteSet("A-Za-z0-9+/_.~-")

// opaqueRandom reports a value of the base64 alphabets holding a run of
// letters and digits that reads as random (see TokenShaped).
func opaqueRandom(v string) bool {
	body := strings.TrimRight(v, "=")
	if len(v)-len(body) > 6 || body == "" {
		return false
	}
	switch body[0] {
	case '/', '.', '~', '-':
		return false // a path, a relative path or an option
	}
	for i := 0; i < len(body); i++ {
		if !base64Body.has(body[i]) {
			return false
		}
	}
	for _, chunk := range strings.FieldsFunc(body, func(r rune) bool { return r == '.' || r == '~' }) {
		if randomChunk(chunk) {
			return true
		}
	}
	return false
}

// randomChunk judges a run without dots. Its parts between - and _ are
// judged alone, as names are made of them (web-7d9f8b6c4-x2k9p); the whole
// run is judged as one word when no part is a word and one is long, as in
// base64url, where - and _ are letters of the alphabet.
func randomChunk(c string) bool {
	words, longest := 0, 0
	for _, seg := range strings.FieldsFunc(c, func(r rune) bool { return r == '-' || r == '_' }) {
		if len(seg) >= 16 && randomWord(seg) {
			return true
		}
		if wordLike(seg) {
			words++
		}
		longest = max(longest, len(seg))
	}
	return words == 0 && longest >= 12 && len(c) >= 16 && randomWord(c)
}

// wordLike reports a part of a name: 5 or more letters in one case or
// capitalised, or 5 or more digits.
func wordLike(s string) bool {
	if len(s) < 5 {
		return false
	}
	var upper, lower, digits int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isUpper(c):
			upper++
		case isLower(c):
			lower++
		case isDigit(c):
			digits++
		}
	}
	switch {
	case digits == len(s):
		return true
	case digits > 0:
		return false
	}
	return upper == 0 || lower == 0 || upper == 1 && isUpper(s[0])
}

// randomWord reports a run of letters and digits that changes between
// classes (upper, lower, digit) as often as random text does.
func randomWord(w string) bool {
	var upper, lower, digits, changes int
	hex := true
	prev := byte(0)
	for i := 0; i < len(w); i++ {
		c := w[i]
		class := byte('d')
		switch {
		case c == '+' || c == '/' || c == '-' || c == '_':
			continue
		case isUpper(c):
			upper++
			class = 'u'
		case isLower(c):
			lower++
			class = 'l'
		default:
			digits++
		}
		if !isHex(c) {
			hex = false
		}
		if prev != 0 && class != prev {
			changes++
		}
		prev = class
	}
	n := upper + lower + digits
	switch {
	case n < 16 || hex:
		return false
	case upper > 0 && lower > 0:
		// Mixed case: random text changes class in about 3 of 5 places.
		// With fewer than two digits, identifiers come close
		// (getElementsByTagNameNS2), so more changes are asked for.
		if digits < 2 {
			return 2*changes >= n
		}
		return 5*changes >= 2*n
	case digits >= 2 && digits < n:
		// One case and digits: in about 2 of 5 places.
		return 4*changes >= n
	}
	return false
}
