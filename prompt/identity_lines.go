package prompt

import "strings"

const (
	modelPrefix    = "Model: "
	providerPrefix = "Provider: "
	startedPrefix  = "Conversation started: "
)

// closingBlock returns the offset where the prompt's closing lines begin:
// the last "Conversation started:" line, or 0 when there is none. Model
// and Provider lines are only looked for after it, so a context file that
// happens to contain "Model: x" is never touched.
func closingBlock(prompt string) int {
	if strings.HasPrefix(prompt, startedPrefix) {
		return 0
	}
	if i := strings.LastIndex(prompt, "\n"+startedPrefix); i >= 0 {
		return i + 1
	}
	return 0
}

// identityValue returns the value of the closing block's (last) line
// with prefix.
func identityValue(prompt, prefix string) (value string, found bool) {
	block := prompt[closingBlock(prompt):]
	for _, line := range strings.Split(block, "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			value, found = v, true
		}
	}
	return value, found
}

// IdentityMatches reports whether a stored prompt names this model and
// provider, so a resumed session can reuse it byte for byte (keeping the
// provider's prompt cache). A missing line matches an empty value.
func IdentityMatches(prompt, model, provider string) bool {
	m, _ := identityValue(prompt, modelPrefix)
	p, _ := identityValue(prompt, providerPrefix)
	return m == model && p == provider
}

// ReplaceIdentityLines rewrites the Model: and Provider: lines of a built
// prompt (after a provider fallback or a /model switch), leaving every
// other byte as it was. An empty value removes its line; a missing line
// is added at the end of the closing block.
func ReplaceIdentityLines(prompt, model, provider string) string {
	start := closingBlock(prompt)
	head, block := prompt[:start], prompt[start:]
	lines := strings.Split(block, "\n")
	out := lines[:0:0]
	setModel, setProvider := false, false
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, modelPrefix):
			if model != "" && !setModel {
				out = append(out, modelPrefix+model)
			}
			setModel = true
		case strings.HasPrefix(line, providerPrefix):
			if provider != "" && !setProvider {
				out = append(out, providerPrefix+provider)
			}
			setProvider = true
		default:
			out = append(out, line)
		}
	}
	// Missing lines go after the last non-empty line of the block.
	end := len(out)
	for end > 0 && out[end-1] == "" {
		end--
	}
	tail := append([]string(nil), out[end:]...)
	out = out[:end]
	if !setModel && model != "" {
		out = append(out, modelPrefix+model)
	}
	if !setProvider && provider != "" {
		out = append(out, providerPrefix+provider)
	}
	out = append(out, tail...)
	return head + strings.Join(out, "\n")
}

// RewriteIdentity is ReplaceIdentityLines for a prompt sent to another
// model (a provider chain's fallback): only a prompt that names its model
// or provider is rewritten; other system text, such as an auxiliary
// task's, is returned as it is, with no identity lines added.
func RewriteIdentity(system, model, provider string) string {
	if !strings.Contains(system, "Model:") && !strings.Contains(system, "Provider:") {
		return system
	}
	return ReplaceIdentityLines(system, model, provider)
}
