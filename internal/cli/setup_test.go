package cli

import (
	"testing"

	"github.com/hermes-go/hermes/config"
)

// The main model goes where the file keeps it: into model: when it is a
// mapping (what would override it taken out), else model: NAME with the
// top-level provider and base_url; the rest of the file stays.
func TestModelChangesFollowTheFilesLayout(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "# mine\nmodel: old   # the old one\nprovider: openai\napi_mode: codex_responses\n",
			"# mine\nmodel: new # the old one\nprovider: custom\nbase_url: http://127.0.0.1:9/v1\n"},
		{"mapping", "model:\n  default: old\n  context_length: 8192\nprovider: openai\n",
			"model:\n  default: new\n  context_length: 8192\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n"},
		{"empty", "", "model: new\nprovider: custom\nbase_url: http://127.0.0.1:9/v1\n"},
	} {
		changes := modelChanges([]byte(tc.in), "custom", "http://127.0.0.1:9/v1", "", "new", "")
		out, err := config.EditKeys([]byte(tc.in), "config.yaml", changes...)
		if err != nil || string(out) != tc.want {
			t.Errorf("%s: %v\n%s\nwant\n%s", tc.name, err, out, tc.want)
		}
	}
}

func TestPickOptionTakesANumberOrAName(t *testing.T) {
	opts := []option{{name: "openrouter"}, {name: "custom"}}
	for answer, want := range map[string]int{"1": 0, "2": 1, "Custom": 1} {
		if i, ok := pickOption(opts, answer); !ok || i != want {
			t.Errorf("%q: %d %v", answer, i, ok)
		}
	}
	for _, bad := range []string{"0", "3", "ollama", ""} {
		if _, ok := pickOption(opts, bad); ok {
			t.Errorf("%q was taken", bad)
		}
	}
}
