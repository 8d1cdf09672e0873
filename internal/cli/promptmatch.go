package cli

import "strings"

// promptMatches reports whether a stored system prompt was built for this
// model and provider (its Model: and Provider: lines).
func promptMatches(p, model, prov string) bool {
	var m, pr string
	for _, line := range strings.Split(p, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "Model:"); ok {
			m = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "Provider:"); ok {
			pr = strings.TrimSpace(v)
		}
	}
	return m == model && pr == prov
}
