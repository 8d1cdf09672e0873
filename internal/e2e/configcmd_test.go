package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const configCmdConfig = `# work laptop
terminal:
  timeout: 120   # two minutes is plenty

web:
  # pages on the intranet
  allow_private: false
`

func TestConfigGetPrintsTheValueAlone(t *testing.T) {
	home := writeHome(t, configCmdConfig)
	for key, want := range map[string]string{
		"terminal.timeout":   "120\n",
		"web.allow_private":  "false\n",
		"approvals.mode":     "manual\n", // a default
		"terminal.backend":   "local\n",
		"agent.max_turns":    "500\n",
		"web.search.backend": "\n",
	} {
		r := hermes(t, home, home, "config", "get", key)
		if r.code != 0 || r.stdout != want {
			t.Errorf("get %s: exit %d stdout %q stderr %q", key, r.code, r.stdout, r.stderr)
		}
	}
	r := hermes(t, home, home, "config", "get", "terminal.timout")
	if r.code != 2 || !strings.Contains(r.stderr, `did you mean "terminal.timeout"`) {
		t.Fatalf("unknown key: exit %d stderr %q", r.code, r.stderr)
	}
	r = hermes(t, home, home, "config", "get", "terminal", "--json")
	var sec map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sec) != nil || sec["timeout"] != float64(120) {
		t.Fatalf("get terminal --json: %q %q", r.stdout, r.stderr)
	}
}

// set changes the one line and keeps every comment; the new value is
// what hermes then reads.
func TestConfigSetKeepsCommentsAndTakesEffect(t *testing.T) {
	home := writeHome(t, configCmdConfig)
	r := hermes(t, home, home, "config", "set", "terminal.timeout", "300")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	want := strings.Replace(configCmdConfig, "timeout: 120   # two minutes is plenty", "timeout: 300 # two minutes is plenty", 1)
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != want {
		t.Fatalf("config.yaml:\n%s", got)
	}
	r = hermes(t, home, home, "config", "set", "providers.local.base_url", "http://127.0.0.1:8080/v1")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if r = hermes(t, home, home, "config", "get", "providers.local.base_url"); r.stdout != "http://127.0.0.1:8080/v1\n" {
		t.Fatalf("get: %q %q", r.stdout, r.stderr)
	}
	if r = hermes(t, home, home, "config", "get", "terminal.timeout"); r.stdout != "300\n" {
		t.Fatalf("get: %q %q", r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "config", "unset", "terminal.timeout")
	if r.code != 0 || hermes(t, home, home, "config", "get", "terminal.timeout").stdout != "180\n" {
		t.Fatalf("unset: exit %d stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(home, "config.yaml")); !strings.HasPrefix(got, "# work laptop\nterminal:\n\nweb:\n  # pages on the intranet\n") {
		t.Fatalf("after unset:\n%s", got)
	}
}

// A bad value is refused with the reason; the file stays byte for byte.
func TestConfigSetRefusesABadValueAndLeavesTheFile(t *testing.T) {
	home := writeHome(t, configCmdConfig)
	for _, tc := range []struct{ key, value, reason string }{
		{"terminal.timeout", "0", "at least 1"},
		{"terminal.timeout", "never", "a whole number"},
		{"web.allow_private", "perhaps", "true or false"},
		{"sandbox.mode", "wide-open", "read-only, workspace-write, full-access"},
		{"toolsets", "terminal,bogus", `no toolset "bogus"`},
		{"terminal", "5", "section"},
	} {
		r := hermes(t, home, home, "config", "set", tc.key, tc.value)
		if r.code == 0 || !contains(r.stderr, tc.reason, "was not changed") {
			t.Errorf("set %s %s: exit %d stderr %q", tc.key, tc.value, r.code, r.stderr)
		}
		if got := readFile(t, filepath.Join(home, "config.yaml")); got != configCmdConfig {
			t.Fatalf("set %s %s changed the file:\n%s", tc.key, tc.value, got)
		}
	}
}

// A secret goes to .env, never to config.yaml, and show masks it.
func TestConfigSetOfASecretWritesDotEnv(t *testing.T) {
	home := writeHome(t, configCmdConfig+"provider: openrouter\n")
	r := hermes(t, home, home, "config", "set", "api_key", setupKey)
	if r.code != 0 || !contains(r.stdout, "secret", "OPENROUTER_API_KEY", ".env") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if env := readFile(t, filepath.Join(home, ".env")); env != "OPENROUTER_API_KEY="+setupKey+"\n" {
		t.Fatalf(".env: %q", env)
	}
	if fi, _ := os.Stat(filepath.Join(home, ".env")); fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env mode %v", fi.Mode())
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); strings.Contains(cfg, setupKey) {
		t.Fatalf("config.yaml holds the key:\n%s", cfg)
	}
	if r := hermes(t, home, home, "config", "get", "api_key"); r.stdout != "********"+setupKey[len(setupKey)-4:]+"\n" {
		t.Fatalf("get api_key: %q %q", r.stdout, r.stderr)
	}
	if r := hermes(t, home, home, "config", "get", "api_key", "--reveal"); r.stdout != setupKey+"\n" {
		t.Fatalf("get api_key --reveal: %q %q", r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "config", "set", "gateway.platforms.telegram.token", "123:abc-token-value")
	if r.code != 0 || !strings.Contains(readFile(t, filepath.Join(home, ".env")), "TELEGRAM_BOT_TOKEN=123:abc-token-value") {
		t.Fatalf("telegram token: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "config", "show", "--json")
	if r.code != 0 || strings.Contains(r.stdout, "abc-token-value") {
		t.Fatalf("show: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	var show struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &show); err != nil || show.Settings["provider"] != "openrouter" {
		t.Fatalf("show --json: %v %s", err, r.stdout)
	}

	// Unsetting a secret forgets it: its line leaves .env, the others stay.
	r = hermes(t, home, home, "config", "unset", "api_key")
	if r.code != 0 || !contains(r.stdout, "OPENROUTER_API_KEY", ".env") {
		t.Fatalf("unset api_key: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if env := readFile(t, filepath.Join(home, ".env")); strings.Contains(env, setupKey) || !strings.Contains(env, "TELEGRAM_BOT_TOKEN=123:abc-token-value") {
		t.Fatalf(".env after unset: %q", env)
	}
	if r := hermes(t, home, home, "config", "get", "api_key"); strings.Contains(r.stdout, setupKey[len(setupKey)-4:]) {
		t.Fatalf("get api_key after unset: %q %q", r.stdout, r.stderr)
	}
}

func TestConfigPathAndCheck(t *testing.T) {
	home := writeHome(t, configCmdConfig)
	if r := hermes(t, home, home, "config", "path"); r.stdout != filepath.Join(home, "config.yaml")+"\n" {
		t.Fatalf("path: %q", r.stdout)
	}
	if r := hermes(t, home, home, "config", "check"); r.code != 0 || !strings.Contains(r.stdout, "is valid") {
		t.Fatalf("check: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	bad := "terminal:\n  timeout: -5\napprovals:\n  mode: sometimes\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r := hermes(t, home, home, "config", "check")
	if r.code != 1 || !contains(r.stderr, "terminal.timeout", "approvals.mode", "one of manual, off") {
		t.Fatalf("check: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "config", "check", "--json")
	var out struct {
		OK     bool     `json:"ok"`
		Errors []string `json:"errors"`
	}
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.OK || len(out.Errors) != 2 {
		t.Fatalf("check --json: exit %d %q", r.code, r.stdout)
	}
}

// edit runs the editor, then checks: an invalid file is put back as it
// was when nobody is at a terminal to edit it again.
func TestConfigEditRestoresAnInvalidFile(t *testing.T) {
	home := writeHome(t, configCmdConfig)
	editor := filepath.Join(home, "editor.sh")
	script := "#!/bin/sh\nprintf 'terminal:\\n  timeout: soon\\n' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := hermesEnv(t, []string{"EDITOR=" + editor}, home, home, "config", "edit")
	if r.code != 1 || !contains(r.stderr, "timeout", "put back") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != configCmdConfig {
		t.Fatalf("config.yaml was not restored:\n%s", got)
	}
	good := "#!/bin/sh\nprintf '# edited\\nterminal:\\n  timeout: 45\\n' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(good), 0o755); err != nil {
		t.Fatal(err)
	}
	r = hermesEnv(t, []string{"VISUAL=" + editor}, home, home, "config", "edit")
	if r.code != 0 || hermes(t, home, home, "config", "get", "terminal.timeout").stdout != "45\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
