package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaultsWithoutAFile(t *testing.T) {
	c, err := Load(t.TempDir(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxTurns != 500 || c.Agent.ToolPoolSize != 128 || !*c.Agent.BudgetWarnings || c.Terminal.Timeout != 180 ||
		c.Approvals.Mode != "manual" || c.Approvals.Timeout != 300 || !*c.Security.RedactSecrets ||
		c.Delegation.MaxIterations != 50 || c.Delegation.MaxSpawnDepth != 1 || c.Delegation.MaxConcurrentChildren != 3 ||
		c.Compression.Threshold != 0.5 || c.Compression.ProtectLastN != 20 || c.PromptCaching.CacheTTL != "5m" {
		t.Fatalf("defaults %+v", c)
	}
}

func TestFileWinsOverEnvironment(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model: from-file\nagent:\n  max_turns: 7\n"), 0o600)
	c, err := Load(home, env(map[string]string{"HERMES_MODEL": "from-env", "OPENAI_BASE_URL": "http://env/v1"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.Name != "from-file" || c.Agent.MaxTurns != 7 || c.BaseURL != "http://env/v1" || c.Agent.ToolPoolSize != 128 {
		t.Fatalf("config %+v", c)
	}
}

func TestModelMappingForm(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  default: gpt-5\n  provider: openai\n  context_length: 4096\n"), 0o600)
	c, err := Load(home, env(nil))
	if err != nil || c.Model.Name != "gpt-5" || c.Provider != "openai" || c.Model.ContextLength != 4096 {
		t.Fatalf("config %+v err %v", c, err)
	}
}

func TestMalformedFileNamesTheLine(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("agent:\n  max_turns: [oops\n"), 0o600)
	_, err := Load(home, env(nil))
	if err == nil || !strings.Contains(err.Error(), "config.yaml") || !strings.Contains(err.Error(), "2") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnknownKeysAreWarnedAbout(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("modle: typo\n"), 0o600)
	c, err := Load(home, env(nil))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `"modle"`) {
		t.Fatalf("warnings %v err %v", c.Warnings, err)
	}
}

func TestAddToAllowlistKeepsOtherKeys(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "config.yaml")
	os.WriteFile(p, []byte("model: m\n"), 0o600)
	if err := AddToAllowlist(p, "recursive delete"); err != nil {
		t.Fatal(err)
	}
	AddToAllowlist(p, "recursive delete")
	c, err := Load(home, env(nil))
	if err != nil || c.Model.Name != "m" || len(c.CommandAllowlist) != 1 || c.CommandAllowlist[0] != "recursive delete" {
		t.Fatalf("config %+v err %v", c, err)
	}
}

func TestDotEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(p, []byte("# keys\nexport OPENAI_API_KEY=\"sk-x\"\nHERMES_MODEL=m\n\nbad line\n"), 0o600)
	m, err := LoadDotEnv(p)
	if err != nil || m["OPENAI_API_KEY"] != "sk-x" || m["HERMES_MODEL"] != "m" || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
}

// agent.api_max_retries distinguishes "not set" (the provider default)
// from 0 (no retries).
func TestAPIMaxRetriesZeroIsKept(t *testing.T) {
	c, err := Load(t.TempDir(), env(nil))
	if err != nil || c.Agent.APIMaxRetries != nil {
		t.Fatalf("unset api_max_retries = %v, err %v", c.Agent.APIMaxRetries, err)
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("agent:\n  api_max_retries: 0\n"), 0o600)
	c, err = Load(home, env(nil))
	if err != nil || c.Agent.APIMaxRetries == nil || *c.Agent.APIMaxRetries != 0 || len(c.Warnings) != 0 {
		t.Fatalf("api_max_retries = %v, warnings %q, err %v", c.Agent.APIMaxRetries, c.Warnings, err)
	}
}
