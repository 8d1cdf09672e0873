package config

import (
	"os"
	"path/filepath"
	"reflect"
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

// A number setting takes a number in quotes (max_turns: "7"), at any
// depth and in the model's mapping; a negative integer in quotes does not.
func TestQuotedNumbersSetNumbers(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("agent:\n  max_turns: \"7\"\nmodel:\n  default: m\n  context_length: '4096'\ncompression:\n  threshold: \"0.25\"\n"), 0o600)
	c, err := Load(home, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.MaxTurns != 7 || c.Model.ContextLength != 4096 || c.Compression.Threshold != 0.25 {
		t.Fatalf("max_turns %d context_length %d threshold %v", c.Agent.MaxTurns, c.Model.ContextLength, c.Compression.Threshold)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("agent:\n  max_turns: '-2'\n"), 0o600)
	if _, err := Load(home, env(nil)); err == nil {
		t.Fatal("max_turns: '-2' loaded")
	}
}

// A file YAML cannot read is an error that shows the line it goes wrong
// on, with the line before it: after a list in brackets over two lines,
// under a tab, at a value of the wrong type (with its column).
func TestMalformedFileShowsTheLine(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"x: [1,\n  2]\ny: b c: d\n", ">   3 | y: b c: d"},
		{"model: m\n\tagent: 1\n", ">   2 | \tagent: 1"},
		{"model: m\nagent:\n  max_turns: [oops\n", ">   3 |   max_turns: [oops"},
		{"model: m\nagent:\n  max_turns: x\n", "[3:14] cannot unmarshal !!str `x` into int\n    2 | agent:\n>   3 |   max_turns: x\n                     ^"},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.doc), 0o600)
		_, err := Load(home, env(nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to show\n%s", tc.doc, err, tc.want)
		}
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

func TestDotEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(p, []byte("# keys\nexport OPENAI_API_KEY=\"sk-x\"\nHERMES_MODEL=m\n\nbad line\n"), 0o600)
	m, err := LoadDotEnv(p)
	if err != nil || m["OPENAI_API_KEY"] != "sk-x" || m["HERMES_MODEL"] != "m" || len(m) != 2 {
		t.Fatalf("%v %v", m, err)
	}
}

// An empty file, or one holding only comments, is the defaults: HERMES_HOME
// stays where it is, so state.db and memories/ are not moved.
func TestEmptyOrCommentOnlyFileMeansTheDefaults(t *testing.T) {
	want, err := Load(t.TempDir(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"", "\n\n", "# all commented out\n# model: gpt-5\n", "---\n", "---\n# nothing\n"} {
		home := t.TempDir()
		p := filepath.Join(home, "config.yaml")
		os.WriteFile(p, []byte(doc), 0o600)
		c, err := Load(home, env(nil))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if c.Home != home || c.Path != p {
			t.Fatalf("%q: Home %q Path %q, want %q %q", doc, c.Home, c.Path, home, p)
		}
		c.Home, c.Path, want.Home = "", "", ""
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("%q: config %+v, want the defaults %+v", doc, c, want)
		}
	}
}

func TestUnknownKeysAreWarnedAtEveryDepthWithLineAndSuggestion(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"agent: {max_turn: 5}\n", `config.yaml:1: unknown key "agent.max_turn" ignored (did you mean "agent.max_turns"?)`},
		{"model: m\nagent:\n  tool_pool_sise: 4\n", `config.yaml:3: unknown key "agent.tool_pool_sise" ignored (did you mean "agent.tool_pool_size"?)`},
		{"max_turns: 5\n", `config.yaml:1: unknown key "max_turns" ignored (did you mean "agent.max_turns"?)`},
		{"model:\n  defualt: gpt-5\n", `config.yaml:2: unknown key "model.defualt" ignored (did you mean "model.default"?)`},
		{"providers:\n  mine:\n    base_ur: http://x\n", `config.yaml:3: unknown key "providers.mine.base_ur" ignored (did you mean "providers.mine.base_url"?)`},
		{"fallback_providers:\n  - provider: openai\n    modle: gpt-5\n", `config.yaml:3: unknown key "fallback_providers[0].modle" ignored (did you mean "fallback_providers[0].model"?)`},
		{"hooks:\n  pre_tool_call:\n    - command: echo\n      timout: 3\n", `config.yaml:4: unknown key "hooks.pre_tool_call[0].timout" ignored (did you mean "hooks.pre_tool_call[0].timeout"?)`},
		{"zzz: 1\n", `config.yaml:1: unknown key "zzz" ignored`},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.doc), 0o600)
		c, err := Load(home, env(nil))
		if err != nil || len(c.Warnings) != 1 || !strings.HasSuffix(c.Warnings[0], tc.want) {
			t.Errorf("%q: warnings %q err %v, want %q", tc.doc, c.Warnings, err, tc.want)
		}
	}
	// Known keys at every depth warn about nothing.
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(`model: {default: m, name: m, context_length: 4096}
agent: {max_turns: 5, budget_warnings: false}
providers: {mine: {base_url: "http://x", key_env: K}}
auxiliary: {compression: {model: small, fallback_providers: [{provider: openai}]}}
hooks: {post_tool_call: [{matcher: terminal, command: "true", timeout: 3}]}
defaults: &d {max_turns: 9}
`), 0o600)
	if c, err := Load(home, env(nil)); err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `"defaults"`) {
		t.Errorf("warnings %q err %v", c.Warnings, err)
	}
}

func TestInvalidValuesAreErrorsNamingKeyValueAndWhatIsAllowed(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []string
	}{
		{"agent:\n  max_turns: -3\n", []string{"config.yaml:2", "agent.max_turns", "-3", "at least 1"}},
		{"agent:\n  max_turns: 0\n", []string{"agent.max_turns", " 0 ", "at least 1"}},
		{"approvals:\n  mode: smart\n", []string{"config.yaml:2", "approvals.mode", `"smart"`, "manual, off"}},
		{"terminal:\n  backend: kubernetes\n", []string{"terminal.backend", `"kubernetes"`, "local, ssh, docker"}},
		{"terminal:\n  backend: ssh\n", []string{"terminal.ssh.host", "required with terminal.backend: ssh"}},
		{"terminal:\n  ssh:\n    host: box\n    port: 70000\n", []string{"config.yaml:4", "terminal.ssh.port", "70000"}},
		{"terminal:\n  ssh:\n    host: box\n    cwd: src/app\n", []string{"terminal.ssh.cwd", `"src/app"`, "an absolute path"}},
		{"compression:\n  threshold: 1.5\n", []string{"compression.threshold", "1.5", "between 0 and 1"}},
		{"compression:\n  protect_last_n: -1\n", []string{"compression.protect_last_n", "-1"}},
		{"delegation:\n  timeout: -5\n", []string{"delegation.timeout", "-5", "at least 0"}},
		{"tool_loop_guardrails:\n  halt_after: -1\n", []string{"tool_loop_guardrails.halt_after", "-1"}},
		{"providers:\n  mine:\n    request_timeout_seconds: -1\n", []string{"config.yaml:3", "providers.mine.request_timeout_seconds"}},
		{"hooks:\n  pre_tool_call:\n    - command: x\n      timeout: -2\n", []string{"hooks.pre_tool_call[0].timeout", "-2"}},
		{"prompt_caching:\n  cache_ttl: 10m\n", []string{"prompt_caching.cache_ttl", `"10m"`, "5m, 1h, auto"}},
		{"model:\n  context_length: -1\n", []string{"model.context_length", "-1"}},
		{"approvals:\n  unattended_mode: ask\n", []string{"approvals.unattended_mode", `"ask"`, "deny, allow"}},
		{"gateway:\n  api_server:\n    port: 70000\n", []string{"config.yaml:3", "gateway.api_server.port", "70000"}},
		{"gateway:\n  api_server:\n    max_concurrent_runs: 0\n", []string{"gateway.api_server.max_concurrent_runs", "at least 1"}},
		{"gateway:\n  api_server:\n    cors_origins: [chat.example.com]\n", []string{"gateway.api_server.cors_origins[0]", "an origin"}},
		{"sandbox:\n  network: sometimes\n", []string{"config.yaml:2", "sandbox.network:", `"sometimes"`, "on, off, allowlist", "a mapping"}},
		{"sandbox:\n  network: [on]\n", []string{"config.yaml:2", "sandbox.network:", "[on]", "a mapping"}},
		{"sandbox:\n  network:\n    mode: maybe\n", []string{"config.yaml:3", "sandbox.network.mode", `"maybe"`, "on, off, allowlist"}},
		{"sandbox:\n  network:\n    allow:\n      - pypi.org\n      - https://x.org/simple\n", []string{"config.yaml:5", "sandbox.network.allow[1]", `"https://x.org/simple"`, "a domain such as"}},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.doc), 0o600)
		_, err := Load(home, env(nil))
		if err == nil {
			t.Errorf("%q: accepted", tc.doc)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %q lacks %q", tc.doc, err, w)
			}
		}
	}
	// Every problem is reported at once, in file order.
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("approvals:\n  mode: smart\nagent:\n  max_turns: -3\n"), 0o600)
	_, err := Load(home, env(nil))
	if err == nil || strings.Count(err.Error(), "\n") != 1 || strings.Index(err.Error(), "approvals.mode") > strings.Index(err.Error(), "agent.max_turns") {
		t.Errorf("err = %v", err)
	}
}

func TestSandboxNetworkIsAModeOrAMapping(t *testing.T) {
	f := false
	for _, tc := range []struct {
		doc  string
		want Network
	}{
		{"sandbox:\n  network: on\n", Network{Mode: "on"}},
		{"sandbox:\n  network: off\n", Network{Mode: "off"}},
		{"sandbox:\n  network: allowlist\n", Network{Mode: "allowlist"}},
		{"sandbox:\n  network:\n    mode: allowlist\n    allow: [pkg.example.org, \"*.corp.example\"]\n    defaults: false\n",
			Network{Mode: "allowlist", Allow: []string{"pkg.example.org", "*.corp.example"}, Defaults: &f}},
		{"sandbox:\n  network: {allow: [10.0.0.5]}\n", Network{Allow: []string{"10.0.0.5"}}},
		{"model: m\n", Network{}},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.doc), 0o600)
		c, err := Load(home, env(nil))
		if err != nil || !reflect.DeepEqual(c.Sandbox.Network, tc.want) || len(c.Warnings) != 0 {
			t.Errorf("%q: %+v (warnings %v, err %v), want %+v", tc.doc, c.Sandbox.Network, c.Warnings, err, tc.want)
		}
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("sandbox:\n  network:\n    alow: [x.org]\n"), 0o600)
	if c, err := Load(home, env(nil)); err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `did you mean "sandbox.network.allow"`) {
		t.Errorf("a misspelt key: warnings %v err %v", c.Warnings, err)
	}
}

func TestValidValuesAtTheEdgesAreAccepted(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("approvals:\n  mode: off\ndelegation:\n  timeout: 0\nagent:\n  max_turns: 1\ncompression:\n  threshold: 0.9\nprompt_caching:\n  cache_ttl: auto\n"), 0o600)
	c, err := Load(home, env(nil))
	if err != nil || c.Approvals.Mode != "off" || c.Agent.MaxTurns != 1 || c.Compression.Threshold != 0.9 {
		t.Fatalf("config %+v err %v", c, err)
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

func TestCheckpointLimitsMustBePositive(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("checkpoints:\n  max_files: 0\n  max_bytes: -5\n"), 0o600)
	_, err := Load(home, env(nil))
	if err == nil || !strings.Contains(err.Error(), "checkpoints.max_files") || !strings.Contains(err.Error(), "checkpoints.max_bytes") {
		t.Fatalf("err = %v", err)
	}
}

// The API server's settings default to a loopback server that denies
// what nobody can approve; the environment supplies its key.
func TestAPIServerDefaultsAndEnvironment(t *testing.T) {
	c, err := Load(t.TempDir(), env(map[string]string{"API_SERVER_KEY": "sk-server", "API_SERVER_CORS_ORIGINS": "https://a.example, https://b.example"}))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Gateway.APIServer
	if a.Host != "127.0.0.1" || a.Port != 8642 || a.MaxConcurrentRuns != 10 || a.ModelName != "hermes-agent" || a.Enabled ||
		a.Key != "sk-server" || !reflect.DeepEqual(a.CORSOrigins, []string{"https://a.example", "https://b.example"}) ||
		c.Approvals.UnattendedMode != "deny" {
		t.Fatalf("api_server %+v unattended %q", a, c.Approvals.UnattendedMode)
	}
}

func TestTerminalSSHSettingsAreRead(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("terminal:\n  backend: ssh\n  forward_env: [GOFLAGS, LANG]\n  ssh:\n    host: build.example.org\n    port: 2222\n    user: ci\n    key: ~/.ssh/id_build\n    known_hosts: /etc/hermes/known_hosts\n    cwd: /srv/app\n"), 0o600)
	c, err := Load(home, env(nil))
	want := SSH{Host: "build.example.org", Port: 2222, User: "ci", Key: "~/.ssh/id_build", KnownHosts: "/etc/hermes/known_hosts", Cwd: "/srv/app"}
	if err != nil || c.Terminal.Backend != "ssh" || c.Terminal.SSH != want || !reflect.DeepEqual(c.Terminal.ForwardEnv, []string{"GOFLAGS", "LANG"}) || len(c.Warnings) != 0 {
		t.Fatalf("terminal = %+v, warnings %v, err %v", c.Terminal, c.Warnings, err)
	}
}
