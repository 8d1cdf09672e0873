package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// doctorKey is the key of the doctor tests; no part of it may show.
const doctorKey = "sk-doctor-0123456789-QZXW"

type doctorCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
	Level  string `json:"level"`
}

// doctorJSON runs hermes doctor --json (and more args) and decodes what
// it prints, checking its shape: exactly ok and checks, each check with
// name, ok, detail and fix.
func doctorJSON(t *testing.T, home string, args ...string) (result, bool, map[string]doctorCheck) {
	t.Helper()
	r := hermes(t, home, t.TempDir(), append([]string{"doctor", "--json"}, args...)...)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("doctor --json printed no JSON (%v): exit %d\nstdout %s\nstderr %s", err, r.code, r.stdout, r.stderr)
	}
	if len(raw) != 2 || raw["ok"] == nil || raw["checks"] == nil {
		t.Fatalf("top level %s, want exactly ok and checks", r.stdout)
	}
	var ok bool
	var checks []map[string]any
	if err := json.Unmarshal(raw["ok"], &ok); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw["checks"], &checks); err != nil {
		t.Fatal(err)
	}
	byName := map[string]doctorCheck{}
	for _, c := range checks {
		_, isBool := c["ok"].(bool)
		name, _ := c["name"].(string)
		detail, _ := c["detail"].(string)
		fix, hasFix := c["fix"].(string)
		if name == "" || !isBool || detail == "" || !hasFix || fix == "" {
			t.Fatalf("check without name, ok, detail and fix: %v", c)
		}
		b, _ := json.Marshal(c)
		var dc doctorCheck
		_ = json.Unmarshal(b, &dc)
		byName[name] = dc
	}
	if strings.Contains(r.stdout+r.stderr, doctorKey) || strings.Contains(r.stdout+r.stderr, "QZXW") {
		t.Fatalf("doctor showed the key or part of it:\n%s\n%s", r.stdout, r.stderr)
	}
	return r, ok, byName
}

// healthyHome is a home whose provider (openai, at srv) works with
// doctorKey from .env (mode 0600).
func healthyHome(t *testing.T, srv *llmtest.Server, extra string) string {
	home := t.TempDir()
	writeConfig(t, home, fmt.Sprintf("provider: openai\nbase_url: %s\nmodel: test-model\n%s", srv.URL(), extra))
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY="+doctorKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// okServer answers every completion; the model list (GET /models) is
// not served, so the doctor's proof is a one-token completion.
func okServer(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // GET /models
	srv.RequireKey(doctorKey)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "OK"} })
	return srv
}

func TestDoctorJSONOnAHealthySetupExitsZero(t *testing.T) {
	srv := okServer(t)
	home := healthyHome(t, srv, "")
	r, ok, checks := doctorJSON(t, home)
	if r.code != 0 || !ok {
		t.Fatalf("exit %d ok %v\n%s\n%s", r.code, ok, r.stdout, r.stderr)
	}
	for _, name := range []string{"home", "config", "env_mode", "api_key", "provider", "sandbox", "skills", "session_store", "disk", "python3", "chromium", "ripgrep"} {
		if _, ok := checks[name]; !ok {
			t.Errorf("no %s check", name)
		}
	}
	if c := checks["api_key"]; !c.OK || !strings.Contains(c.Detail, "OPENAI_API_KEY") {
		t.Errorf("api_key %+v", c)
	}
	if c := checks["provider"]; !c.OK || !strings.Contains(c.Detail, "test-model") {
		t.Errorf("provider %+v", c)
	}
	// The provider was really called, with the key, for one token.
	var completions int
	for _, req := range srv.Requests() {
		if req.Format != "" {
			completions++
			if mt, _ := req.JSON["max_tokens"].(float64); mt != 1 {
				if mt2, _ := req.JSON["max_completion_tokens"].(float64); mt2 != 1 {
					t.Errorf("the proof call asked for more than one token: %s", req.Body)
				}
			}
		}
	}
	if completions != 1 {
		t.Fatalf("%d completions, want 1", completions)
	}
}

func TestDoctorFailsOnABrokenConfigWithThatCheckFailing(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, "sandbox:\n  mode: wide-open\n")
	r, ok, checks := doctorJSON(t, home)
	if r.code != 1 || ok {
		t.Fatalf("exit %d ok %v, want 1 false\n%s", r.code, ok, r.stdout)
	}
	c := checks["config"]
	if c.OK || !strings.Contains(c.Detail, "config.yaml") || !strings.Contains(c.Detail, "wide-open") {
		t.Fatalf("config check %+v", c)
	}
	// The other checks still ran.
	if d := checks["disk"]; !d.OK {
		t.Fatalf("disk %+v", d)
	}
}

func TestDoctorFixMakesDotEnvPrivate(t *testing.T) {
	srv := okServer(t)
	home := healthyHome(t, srv, "")
	env := filepath.Join(home, ".env")
	if err := os.Chmod(env, 0o644); err != nil {
		t.Fatal(err)
	}
	r, ok, checks := doctorJSON(t, home)
	if r.code != 1 || ok || checks["env_mode"].OK || !strings.Contains(checks["env_mode"].Fix, "chmod 600") {
		t.Fatalf("exit %d ok %v env_mode %+v", r.code, ok, checks["env_mode"])
	}
	if fi, _ := os.Stat(env); fi.Mode().Perm() != 0o644 {
		t.Fatalf("doctor without --fix changed .env to %v", fi.Mode())
	}
	r, ok, checks = doctorJSON(t, home, "--fix")
	if r.code != 0 || !ok || !checks["env_mode"].OK || !strings.Contains(checks["env_mode"].Detail, "chmod 600") {
		t.Fatalf("--fix: exit %d ok %v env_mode %+v\n%s", r.code, ok, checks["env_mode"], r.stdout)
	}
	if fi, _ := os.Stat(env); fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env is %v after --fix", fi.Mode())
	}
	// The plain report says so too.
	r = hermes(t, home, t.TempDir(), "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "✓ env_mode") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
}

// A key the provider refuses fails the provider check, and the 401's
// masked key is not repeated.
func TestDoctorReportsARefusedKeyWithoutShowingIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.RequireKey("sk-the-right-one-0000")
	home := healthyHome(t, srv, "")
	r, ok, checks := doctorJSON(t, home)
	c := checks["provider"]
	if r.code != 1 || ok || c.OK || !strings.Contains(c.Detail, "refused the key (HTTP 401)") {
		t.Fatalf("exit %d provider %+v", r.code, c)
	}
	if !checks["api_key"].OK {
		t.Fatalf("api_key %+v: a key is present", checks["api_key"])
	}
}

func TestDoctorStartsEachMCPServerAndChecksTheStores(t *testing.T) {
	srv := okServer(t)
	home := healthyHome(t, srv, fmt.Sprintf("mcp_startup_timeout: 30\nmcp_servers:\n  good:\n    command: %s\n  broken:\n    command: /nonexistent/mcp-server\n", mcptest.Binary(t)))
	if err := os.WriteFile(filepath.Join(home, "state.db"), []byte("this is not a database, just text that is long enough to matter"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, ok, checks := doctorJSON(t, home)
	if r.code != 1 || ok {
		t.Fatalf("exit %d ok %v", r.code, ok)
	}
	if c := checks["mcp:good"]; !c.OK || !strings.Contains(c.Detail, "tool(s)") {
		t.Errorf("mcp:good %+v", c)
	}
	if c := checks["mcp:broken"]; c.OK || !strings.Contains(c.Fix, "mcp_servers.broken") {
		t.Errorf("mcp:broken %+v", c)
	}
	if c := checks["session_store"]; c.OK || !strings.Contains(c.Detail, "state.db") {
		t.Errorf("session_store %+v", c)
	}
}

// Missing optional peers are warnings: they do not fail doctor.
func TestDoctorMissingPeersAreWarnings(t *testing.T) {
	srv := okServer(t)
	home := healthyHome(t, srv, "")
	r := hermesEnv(t, []string{"PATH=/nonexistent", "CHROME_PATH="}, home, t.TempDir(), "doctor", "--json")
	var rep struct {
		OK     bool          `json:"ok"`
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s %s", err, r.stdout, r.stderr)
	}
	seen := 0
	for _, c := range rep.Checks {
		switch c.Name {
		case "python3", "chromium", "ripgrep":
			seen++
			if c.OK || c.Level != "warning" {
				t.Errorf("%+v, want a warning", c)
			}
		}
	}
	if seen != 3 || r.code != 0 || !rep.OK {
		t.Fatalf("exit %d ok %v (%d peers)\n%s", r.code, rep.OK, seen, r.stdout)
	}
}
