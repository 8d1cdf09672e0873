package tui

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// The status line names the profile the run uses, and says nothing of
// the default one.
func TestStatusLineNamesTheProfile(t *testing.T) {
	for _, tc := range []struct{ profile, want string }{{"work", "profile work"}, {"default", ""}} {
		h := newHarness(t, llmtest.NewServer(t), setup{profile: tc.profile})
		lines := strings.Split(h.screen(), "\n")
		l := lines[len(lines)-1]
		if tc.want != "" && !strings.Contains(l, tc.want) || tc.want == "" && strings.Contains(l, "profile") {
			t.Errorf("profile %s: status line %q", tc.profile, l)
		}
	}
}
