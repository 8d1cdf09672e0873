package cli

import (
	"strings"
	"testing"
)

// A masked key shows at most its last four characters, and nothing of a
// key short enough for four to matter.
func TestMaskKeyShowsTheLastFourAtMost(t *testing.T) {
	for key, want := range map[string]string{
		"sk-proj-0123456789abcdefWXYZ": "…WXYZ",
		"sk-short-key":                 "…",
		"":                             "…",
	} {
		got := maskKey(key)
		if got != want {
			t.Errorf("maskKey(%q) = %q, want %q", key, got, want)
		}
		if len(key) > 4 && strings.Contains(got, key[:4]) {
			t.Errorf("maskKey(%q) shows the key's start", key)
		}
	}
}

func TestProfileNamesStayInsideProfiles(t *testing.T) {
	for _, ok := range []string{"work", "a", "Work-2", "my_bot.v1"} {
		if err := validProfileName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "..", ".", "a/b", `a\b`, "../x", ".hidden", "-flag", "a..b", strings.Repeat("x", 65), "sp ace"} {
		if err := validProfileName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
