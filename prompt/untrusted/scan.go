package untrusted

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazy"
)

// A threat pattern: text that tries to steer the model from inside data
// that enters its context (context files, SOUL.md, memory, skills, MCP
// tool descriptions).
type threat struct {
	id string
	re *regexp.Regexp
}

func pattern(id, re string) threat { return threat{id, regexp.MustCompile(`(?i)` + re)} }

// contextThreats apply to anything that enters the system prompt.
// They compile on first use: a start of the binary that builds no prompt
// (hermes --version, sessions list) pays nothing for them.
var contextThreats = lazy.Of(buildContextThreats)

func buildContextThreats() []threat {
	return []threat{
		pattern("ignore_instructions", `\bignore\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules|directions|messages|context)`),
		pattern("disregard_instructions", `\bdisregard\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous\s+|prior\s+|above\s+|earlier\s+)?(?:instructions|system\s+prompt|rules|guidelines|directions)`),
		pattern("forget_instructions", `\bforget\s+(?:all\s+|everything\s+|your\s+|the\s+)*(?:previous\s+|prior\s+|earlier\s+)?(?:instructions|rules|guidelines|you\s+(?:were|have\s+been)\s+told)`),
		pattern("system_prompt_override", `\b(?:override|bypass|replace|reveal|print|leak|exfiltrate)\s+(?:the\s+|your\s+)?system\s+prompt`),
		pattern("new_instructions", `\b(?:new|updated|real)\s+system\s+(?:instructions|prompt)\s*:`),
		pattern("mode_hijack", `\b(?:developer|jailbreak|god|dan)\s+mode\s+(?:enabled|activated|on)\b|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|jailbreak|god|dan|unrestricted)\s+mode`),
		pattern("fake_role_tag", `</?\s*system\s*>|<\|im_(?:start|end)\|>|\[/?INST\]|<<\s*/?SYS\s*>>|<\|(?:system|assistant|user)\|>`),
		pattern("hidden_comment_instruction", `<!--[^>]*\b(?:ignore|instruction|system\s+prompt|assistant|you\s+must)\b[^>]*-->`),
	}
}

// strictThreats add exfiltration and persistence patterns, for memory:
// entries the agent itself writes and that persist across sessions.
var strictThreats = lazy.Of(buildStrictThreats)

func buildStrictThreats() []threat {
	return append(append([]threat(nil), contextThreats.Get()...),
		pattern("conceal_from_user", `\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|show)\s+the\s+user\b`),
		pattern("secret_exfiltration", `\b(?:curl|wget|fetch|invoke-webrequest|nc)\b[^\n]*\$\{?[a-z_]*(?:key|token|secret|password)`),
		pattern("secret_file_read", `\b(?:cat|read|send|upload|post)\b[^\n]*(?:\.env\b|id_rsa|id_ed25519|\.ssh/|\.aws/credentials|\.netrc)`),
		pattern("shell_persistence", `>>?\s*~?/?[^\s]*(?:authorized_keys|\.bashrc|\.zshrc|\.profile|crontab)`),
	)
}

// ScanContext returns the ids of injection patterns found in text that
// is about to enter the model's context (context files, SOUL.md, skills,
// MCP tool descriptions). Empty means nothing suspicious.
func ScanContext(text string) []string { return scan(text, contextThreats.Get()) }

// ScanStrict is ScanContext plus exfiltration and persistence patterns,
// for text that persists and is acted on later (memory entries, skills
// the agent writes or installs).
func ScanStrict(text string) []string { return scan(text, strictThreats.Get()) }

func scan(text string, threats []threat) []string {
	var found []string
	for _, t := range threats {
		if t.re.MatchString(text) {
			found = append(found, t.id)
		}
	}
	if r, ok := firstInvisible(text); ok {
		found = append(found, fmt.Sprintf("invisible_unicode_U+%04X", r))
	}
	return found
}

// invisible reports characters that render as nothing (zero-width,
// bidirectional controls, Unicode tag characters) and so can hide text
// from a human reviewer while the model still reads it.
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space/joiners, LRM/RLM
		r >= 0x202A && r <= 0x202E,   // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x2064,   // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069,   // bidi isolates
		r == 0xFEFF,                  // zero-width no-break space (a BOM inside text)
		r == 0x00AD,                  // soft hyphen
		r >= 0xE0000 && r <= 0xE007F: // tag characters
		return true
	}
	return false
}

func firstInvisible(text string) (rune, bool) {
	text = strings.TrimPrefix(text, "\ufeff") // a leading BOM is an editor artefact
	for _, r := range text {
		if invisible(r) {
			return r, true
		}
	}
	return 0, false
}

// RevealInvisible replaces invisible characters with a visible <U+XXXX>
// (a leading byte order mark, an editor artefact, is dropped), so text
// quoted as data cannot hide anything from a reader.
func RevealInvisible(text string) string {
	if _, ok := firstInvisible(text); !ok {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for i, r := range text {
		if i == 0 && r == 0xFEFF {
			continue
		}
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		if r == utf8.RuneError {
			b.WriteRune(utf8.RuneError)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
