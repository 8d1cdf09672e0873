package redact

import "strings"

// A token is a credential whose format starts with a fixed public prefix
// (ghp_, glpat-, xai-, ...). Tokens are found by a hand-written matcher
// rather than by regular expressions: one pass over the text finds every
// prefix, and the body is read byte by byte, across the line breaks,
// escape sequences and zero-width characters that can split it.
type token struct {
	prefix string
	body   *byteSet // bytes the secret part is made of
	min    int      // fewest body bytes
	max    int      // most body bytes (0: no bound); a longer run is not this token
	// dots lets single dots separate body runs (sk-sp-….…), never two
	// in a row and never at the end.
	dots bool
	// labels are longer public prefixes kept in the mask when the token
	// starts with one ("sk-proj-" for an sk- key), longest first.
	labels []string
	// full masks the prefix too (JWT headers say nothing useful).
	full bool
	// custom reads the body after the prefix and returns its end, or -1.
	// It replaces body/min/max.
	custom func(s string, start int) int
}

var (
	alnum       = newByteSet("A-Za-z0-9")
	alnumUnder  = newByteSet("A-Za-z0-9_")
	alnumDash   = newByteSet("A-Za-z0-9-")
	alnumUD     = newByteSet("A-Za-z0-9_-")
	alnumUDDot  = newByteSet("A-Za-z0-9_.-")
	upperDigits = newByteSet("A-Z0-9")
	fernet      = newByteSet("A-Za-z0-9_=-")
	bech32      = newByteSet("qpzry9x8gf2tvdw0s3jn54khce6mua7lQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
)

// skLabels are the public prefixes of sk- keys, longest first.
var skLabels = []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-", "sk-or-v1-", "sk-proj-", "sk-svcacct-", "sk-admin-"}

// tokens lists the credential formats known by their prefix. Most come from
// upstream Hermes' agent/redact.py (_PREFIX_PATTERNS); where a short
// prefix is also common in identifiers, the body is held to the vendor's
// real length (see the notes).
var tokens = []token{
	// OpenAI, Anthropic, OpenRouter, Langfuse secret keys, Alibaba (dotted).
	{prefix: "sk-", body: &alnumUD, min: 16, dots: true, labels: skLabels},
	{prefix: "ghp_", body: &alnumUnder, min: 20},
	{prefix: "gho_", body: &alnumUnder, min: 20},
	{prefix: "ghu_", body: &alnumUnder, min: 20},
	{prefix: "ghs_", body: &alnumUnder, min: 20},
	{prefix: "ghr_", body: &alnumUnder, min: 20},
	{prefix: "github_pat_", body: &alnumUnder, min: 20},
	// GitLab token families.
	{prefix: "glpat-", body: &alnumUD, min: 10},
	{prefix: "gloas-", body: &alnumUD, min: 10},
	{prefix: "gldt-", body: &alnumUD, min: 10},
	{prefix: "glrt-", body: &alnumUDDot, min: 10},
	{prefix: "glrtr-", body: &alnumUDDot, min: 10},
	{prefix: "glcbt-", body: &alnumUD, min: 10},
	{prefix: "glptt-", body: &alnumUD, min: 10},
	{prefix: "glft-", body: &alnumUD, min: 10},
	{prefix: "glimt-", body: &alnumUD, min: 10},
	{prefix: "glagent-", body: &alnumUD, min: 10},
	{prefix: "glsoat-", body: &alnumUD, min: 10},
	{prefix: "glffct-", body: &alnumUD, min: 10},
	{prefix: "glwt-", body: &alnumUD, min: 10},
	{prefix: "GR1348941", body: &alnumUD, min: 10}, // legacy runner registration
	// Slack.
	{prefix: "xoxa-", body: &alnumDash, min: 10},
	{prefix: "xoxb-", body: &alnumDash, min: 10},
	{prefix: "xoxp-", body: &alnumDash, min: 10},
	{prefix: "xoxo-", body: &alnumDash, min: 10},
	{prefix: "xoxr-", body: &alnumDash, min: 10},
	{prefix: "xoxs-", body: &alnumDash, min: 10},
	{prefix: "xapp-", body: &alnumDash, min: 12},
	// Cloud and model providers.
	{prefix: "AKIA", body: &upperDigits, min: 16, max: 16},
	{prefix: "ASIA", body: &upperDigits, min: 16, max: 16},
	{prefix: "AIza", body: &alnumUD, min: 30},
	{prefix: "xai-", body: &alnum, min: 30},
	{prefix: "fw-", body: &alnum, min: 30},
	{prefix: "fw_", body: &alnum, min: 30},
	{prefix: "fpk_", body: &alnum, min: 30},
	{prefix: "pplx-", body: &alnum, min: 10},
	{prefix: "gsk_", body: &alnum, min: 10},
	{prefix: "r8_", body: &alnum, min: 10},
	// HuggingFace tokens have 34 body bytes; upstream's 10 also masks
	// identifiers such as hf_transformers_cache.
	{prefix: "hf_", body: &alnum, min: 30},
	{prefix: "fal_", body: &alnumUD, min: 10},
	{prefix: "fc-", body: &alnum, min: 10},
	{prefix: "bb_live_", body: &alnumUD, min: 10},
	{prefix: "tvly-", body: &alnum, min: 10},
	{prefix: "exa_", body: &alnum, min: 10},
	{prefix: "hsk-", body: &alnum, min: 10},
	{prefix: "mem0_", body: &alnum, min: 10},
	{prefix: "brv_", body: &alnum, min: 10},
	{prefix: "retaindb_", body: &alnum, min: 10},
	{prefix: "ntn_", body: &alnum, min: 10},
	{prefix: "syt_", body: &alnum, min: 10},
	{prefix: "am_org_", body: &alnum, min: 20},
	{prefix: "am_", body: &alnum, min: 20},
	{prefix: "pk-lf-", body: &alnumDash, min: 8},
	{prefix: "gAAAA", body: &fernet, min: 20}, // Fernet (Codex encrypted tokens)
	// Stripe secret and restricted keys; publishable keys (pk_live_) are
	// public by design and stay.
	{prefix: "sk_live_", body: &alnum, min: 10},
	{prefix: "sk_test_", body: &alnum, min: 10},
	{prefix: "rk_live_", body: &alnum, min: 10},
	{prefix: "rk_test_", body: &alnum, min: 10},
	// ElevenLabs keys have 48 body bytes; upstream's 10 with underscores
	// also masks C identifiers such as sk_filter_charge.
	{prefix: "sk_", body: &alnum, min: 20},
	{prefix: "SG.", body: &alnumUD, min: 10}, // SendGrid
	{prefix: "npm_", body: &alnum, min: 10},
	{prefix: "pypi-", body: &alnumUD, min: 10},
	{prefix: "dop_v1_", body: &alnum, min: 10},
	{prefix: "doo_v1_", body: &alnum, min: 10},
	// age identities: "AGE-SECRET-KEY-1" and 58 bech32 characters.
	{prefix: "AGE-SECRET-KEY-1", body: &bech32, min: 58, max: 58, labels: []string{"AGE-SECRET-KEY-"}},
	// JWTs: base64url JSON ("eyJ" is '{"'), one to three parts.
	{prefix: "eyJ", full: true, custom: jwtEnd},
}

// jwtEnd reads the rest of a JWT after "eyJ": a part of 10 or more
// base64url bytes, then up to two ".part" of 4 or more.
func jwtEnd(s string, i int) int {
	j := runEnd(s, i, &alnumUD)
	if j-i < 10 {
		return -1
	}
	for range 2 {
		if j >= len(s) || s[j] != '.' {
			break
		}
		k := runEnd(s, j+1, &fernet)
		if k-(j+1) < 4 {
			break
		}
		j = k
	}
	return j
}

// runEnd returns the end of the run of set bytes starting at i.
func runEnd(s string, i int, set *byteSet) int {
	for i < len(s) && set.has(s[i]) {
		i++
	}
	return i
}

// mask is what replaces a token match m: the public prefix and the marker.
func (tk *token) mask(m string) string {
	if tk.full {
		return Marker
	}
	for _, l := range tk.labels {
		if strings.HasPrefix(m, l) {
			return prefixed(l)
		}
	}
	return prefixed(tk.prefix)
}

// match reads a token whose prefix starts at i and returns its end, or -1.
// The body may continue across a joiner (line break, escape sequence,
// zero-width character) when that makes a token; otherwise it ends at the
// first joiner.
func (tk *token) match(s string, i int) int {
	start := i + len(tk.prefix)
	if tk.custom != nil {
		return tk.custom(s, start)
	}
	if e, ok := tk.read(s, start, true); ok {
		return e
	}
	if e, ok := tk.read(s, start, false); ok {
		return e
	}
	return -1
}

// read consumes the body from start. With join, a joiner inside the body is
// stepped over when the body goes on after it. A line break is stepped
// over only while the body is still too short to be a token on its own, and
// only into a run that looks opaque itself: a complete token at the end of
// a line never swallows the next line, nor does "sk-test" the words on the
// lines below it. A joined body that runs into "=" is the name of the next
// assignment, not the rest of the token.
func (tk *token) read(s string, start int, join bool) (int, bool) {
	n, j := 0, start
	didJoin := false
	for j < len(s) {
		c := s[j]
		if tk.body.has(c) {
			n++
			j++
			continue
		}
		if c == '.' && tk.dots && n > 0 && j+1 < len(s) && tk.body.has(s[j+1]) {
			j++
			continue
		}
		if !join {
			break
		}
		next, lineBreak := skipJoiners(s, j)
		if next == j || lineBreak && (n >= tk.min || !opaque(s[next:runEnd(s, next, tk.body)])) {
			break
		}
		if next < len(s) && tk.body.has(s[next]) {
			j = next
			didJoin = true
			continue
		}
		break
	}
	if n < tk.min || tk.max > 0 && n > tk.max {
		return j, false
	}
	if tk.max > 0 && j < len(s) && isWordByte(s[j]) {
		return j, false // a fixed-length token is a whole word
	}
	if didJoin && j < len(s) && s[j] == '=' {
		return j, false
	}
	return j, true
}

// wordStartAt reports whether a match may start at i: at the start of the
// text, after a byte that is not part of a word, or right after an escape
// sequence (\n, \uXXXX, \xHH) that JSON and logs put before a value.
func wordStartAt(s string, i int) bool {
	if i == 0 || !isWordByte(s[i-1]) {
		return true
	}
	if i >= 2 && s[i-2] == '\\' && isLetter(s[i-1]) {
		return true
	}
	if i >= 6 && s[i-6] == '\\' && s[i-5] == 'u' && isHex(s[i-4]) && isHex(s[i-3]) && isHex(s[i-2]) && isHex(s[i-1]) {
		return true
	}
	return i >= 4 && s[i-4] == '\\' && s[i-3] == 'x' && isHex(s[i-2]) && isHex(s[i-1])
}

// tokenAt returns the token starting at i and its end.
func tokenAt(x *scanIndex, s string, i int) (*token, int) {
	if !wordStartAt(s, i) {
		return nil, 0
	}
	for _, tk := range x.tokensByFirst[s[i]] {
		if tk.prefix[1] != s[i+1] || !strings.HasPrefix(s[i:], tk.prefix) {
			continue
		}
		if end := tk.match(s, i); end >= 0 {
			return tk, end
		}
	}
	return nil, 0
}

// publicPrefix returns the public prefix a token format keeps in its mask
// when s starts with one, for masks applied by value.
func publicPrefix(s string) string {
	if len(s) < 2 {
		return ""
	}
	x := scanTables.Get()
	if !x.tokenPairs.has(s[0], s[1]) {
		return ""
	}
	for _, tk := range x.tokensByFirst[s[0]] {
		if tk.full || !strings.HasPrefix(s, tk.prefix) {
			continue
		}
		for _, l := range tk.labels {
			if strings.HasPrefix(s, l) {
				return l
			}
		}
		return tk.prefix
	}
	return ""
}
