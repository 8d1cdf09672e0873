package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// approvals check prints the verdict for a command and runs nothing.
func TestApprovalsCheckPrintsTheVerdictWithoutRunning(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		verdict string
		key     string
	}{
		{[]string{"ls", "-la"}, "harmless", ""},
		{[]string{"rm", "-rf", "build"}, "ask", "recursive_delete"},
		{[]string{"X=/; rm -rf $X"}, "blocked", "delete_root"},
		{[]string{"git", "reset", "--hard"}, "ask", "git_reset_hard"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			r := hermes(t, home, work, append([]string{"approvals", "check", "--json", "--"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var v struct {
				Verdict  string `json:"verdict"`
				Findings []struct {
					Key         string `json:"key"`
					Description string `json:"description"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			if v.Verdict != tc.verdict {
				t.Errorf("verdict = %q, want %q", v.Verdict, tc.verdict)
			}
			if tc.key != "" && (len(v.Findings) == 0 || !strings.Contains(r.stdout, `"`+tc.key+`"`)) {
				t.Errorf("findings %+v lack %q", v.Findings, tc.key)
			}
			text := hermes(t, home, work, append([]string{"approvals", "check", "--"}, tc.args...)...)
			if !strings.HasPrefix(text.stdout, tc.verdict) || tc.key != "" && !strings.Contains(text.stdout, tc.key) {
				t.Errorf("text output: %q", text.stdout)
			}
		})
	}
	home, work := t.TempDir(), t.TempDir()
	hermes(t, home, work, "approvals", "check", "--", "touch ran")
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("approvals check ran the command")
	}
}
