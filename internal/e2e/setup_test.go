package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

const setupKey = "sk-test-0123456789abcdef"

const setupConfig = `# my hermes settings
terminal:
  timeout: 120   # two minutes is plenty
`

// keyedServer is a fake provider that lists two models and wants
// setupKey.
func keyedServer(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.SetModels("model-a", "model-b")
	srv.RequireKey(setupKey)
	return srv
}

func writeHome(t *testing.T, config string) string {
	t.Helper()
	home := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// checkWorkingSetup checks what a setup wrote: the key in .env (private),
// config.yaml with its comment and the model, and a run that works with
// no flags.
func checkWorkingSetup(t *testing.T, srv *llmtest.Server, home, model string) {
	t.Helper()
	envPath := filepath.Join(home, ".env")
	if fi, err := os.Stat(envPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env: %v %v", fi, err)
	}
	if env := readFile(t, envPath); !strings.Contains(env, "HERMES_CUSTOM_API_KEY="+setupKey) {
		t.Fatalf(".env holds %q", env)
	}
	cfg := readFile(t, filepath.Join(home, "config.yaml"))
	if strings.Contains(cfg, setupKey) {
		t.Fatalf("config.yaml holds the key:\n%s", cfg)
	}
	if !contains(cfg, "# my hermes settings", "timeout: 120   # two minutes is plenty", "model: "+model, "provider: custom", "key_env: HERMES_CUSTOM_API_KEY") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	srv.Enqueue(llmtest.Reply{Text: "hello from the set-up model"})
	r := hermes(t, home, home, "-z", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "hello from the set-up model" {
		t.Fatalf("after setup: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Model != model || last.APIKey() != setupKey {
		t.Fatalf("the run went to model %q with key %q", last.Model, last.APIKey())
	}
}

// The scripted setup the issue promises: flags only, exit 0 only after
// the test call went through, and a configuration that then works.
func TestSetupNonInteractiveWritesAWorkingSetup(t *testing.T) {
	srv := keyedServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ready"})
	home := writeHome(t, setupConfig)
	r := hermes(t, home, home, "setup", "--non-interactive", "--provider", "custom", "--base-url", srv.URL(),
		"--api-key", setupKey, "--model", "model-b", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	var res struct {
		OK       bool   `json:"ok"`
		Provider string `json:"provider"`
		Model    string `json:"model"`
		KeyVar   string `json:"key_var"`
		Reply    string `json:"reply"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || !res.OK || res.Model != "model-b" || res.KeyVar != "HERMES_CUSTOM_API_KEY" || res.Reply != "ready" {
		t.Fatalf("--json: %v %+v %s", err, res, r.stdout)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "model-b" {
		t.Fatalf("the test call: %+v", reqs)
	}
	checkWorkingSetup(t, srv, home, "model-b")
}

// A setup that does not work writes nothing: a refused key, a model the
// provider lacks, a test call that fails each exit non-zero with the
// reason, and config.yaml stays byte for byte as it was.
func TestSetupThatFailsWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  *llmtest.Reply
		args   []string
		code   int
		reason []string
	}{
		{"wrong key", nil, []string{"--api-key", "sk-wrong-key-000000", "--model", "model-a"}, 1, []string{"refused the key", "401"}},
		{"unknown model", nil, []string{"--api-key", setupKey, "--model", "model-z"}, 2, []string{`does not offer model "model-z"`, "model-a, model-b"}},
		{"test call fails", &llmtest.Reply{Status: 500}, []string{"--api-key", setupKey, "--model", "model-a"}, 1, []string{"test call", "500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := keyedServer(t)
			if tc.reply != nil {
				srv.AllowUnexpected()
				for range 5 { // the transport's retries take some
					srv.Enqueue(*tc.reply)
				}
			}
			home := writeHome(t, setupConfig)
			r := hermes(t, home, home, append([]string{"setup", "--non-interactive", "--provider", "custom", "--base-url", srv.URL()}, tc.args...)...)
			if r.code != tc.code || !contains(r.stderr, tc.reason...) || !strings.Contains(r.stderr, "othing was written") {
				t.Fatalf("exit %d stderr %q", r.code, r.stderr)
			}
			if got := readFile(t, filepath.Join(home, "config.yaml")); got != setupConfig {
				t.Fatalf("config.yaml changed:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(home, ".env")); !os.IsNotExist(err) {
				t.Fatalf(".env was written: %v", err)
			}
		})
	}
}

// Without a terminal, setup reads one answer a line: a provider by
// name, the base URL, the key, the model by its number.
func TestSetupFromAPipeReadsOneAnswerALine(t *testing.T) {
	srv := keyedServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ready"})
	home := writeHome(t, setupConfig)
	answers := strings.Join([]string{"custom", srv.URL(), setupKey, "2", "done"}, "\n") + "\n"
	r := hermesIn(t, answers, home, home, "setup")
	if r.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if !contains(r.stderr, "Provider", "custom", "Model (2 offered by custom)", "1) model-a", "2) model-b", "answered") {
		t.Fatalf("stderr %q", r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, setupKey) {
		t.Fatalf("the key was printed:\n%s\n%s", r.stdout, r.stderr)
	}
	checkWorkingSetup(t, srv, home, "model-b")
}

// In a terminal the wizard is a form: the provider and model picked
// from lists, the key typed without being shown, and the result works.
func TestSetupWizardInATerminal(t *testing.T) {
	srv := keyedServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ready"})
	home := writeHome(t, setupConfig)
	term := startTerm(t, home, home, nil, "setup")
	term.waitFor("Provider", "custom", "openrouter")
	term.keys("-l", "custom")
	term.waitFor("filter: custom")
	term.keys("Enter")
	term.waitFor("Base URL")
	term.typeLine(srv.URL())
	term.waitFor("API key for custom")
	term.keys("-l", setupKey)
	if s := term.screen(); strings.Contains(s, setupKey) || strings.Contains(s, setupKey[len(setupKey)-6:]) {
		t.Fatalf("the key shows as it is typed:\n%s", s)
	}
	term.keys("Enter")
	term.waitFor("Model (2 offered by custom)", "model-a", "model-b")
	term.keys("Down", "Enter")
	term.waitFor("Anything else?")
	s := term.screen()
	if strings.Contains(s, setupKey) || !contains(s, "(entered, not shown)", "Model (2 offered by custom) model-b", "answered") {
		t.Fatalf("screen:\n%s", s)
	}
	term.keys("Enter") // done
	term.waitFor("[exit 0]")
	checkWorkingSetup(t, srv, home, "model-b")
}

// hermes setup tools turns toolsets off and on again; with every one on
// the setting goes.
func TestSetupToolsTurnsToolsetsOffAndOn(t *testing.T) {
	home := writeHome(t, setupConfig)
	r := hermes(t, home, home, "setup", "tools", "--disable", "web,vision", "--json")
	var out struct {
		Toolsets []string `json:"toolsets"`
		All      bool     `json:"all"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.All || contains(strings.Join(out.Toolsets, " "), "web") || !contains(strings.Join(out.Toolsets, " "), "terminal", "file") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	cfg := readFile(t, filepath.Join(home, "config.yaml"))
	if !strings.HasPrefix(cfg, setupConfig) || !strings.Contains(cfg, "toolsets: [") || strings.Contains(cfg, "web") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	r = hermes(t, home, home, "setup", "tools", "--enable", "web,vision")
	if r.code != 0 || readFile(t, filepath.Join(home, "config.yaml")) != setupConfig {
		t.Fatalf("exit %d stderr %q; config.yaml:\n%s", r.code, r.stderr, readFile(t, filepath.Join(home, "config.yaml")))
	}
	r = hermes(t, home, home, "setup", "tools", "--disable", "nosuch")
	if r.code != 2 || !strings.Contains(r.stderr, `no toolset "nosuch"`) {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}

// A model server running on this machine is offered first, and taken
// with Enter: no base URL and no key to type.
func TestSetupOffersTheLocalServerFirst(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ready"}, llmtest.Reply{Text: "hello from the local server"})
	local := newLocalServer(t, srv, "local-model", "other-model")
	home := writeHome(t, setupConfig)
	r := hermesRun(t, []string{"HERMES_LOCAL_PORTS=" + local.port}, "\n\ndone\n", home, home, "setup")
	if r.code != 0 || !contains(r.stderr, "1) custom  a local server running at "+local.url+", 2 models", "Model (2 offered by custom)") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "API key for") || strings.Contains(r.stderr, "Base URL of") {
		t.Fatalf("asked for what the server needs not:\n%s", r.stderr)
	}
	cfg := readFile(t, filepath.Join(home, "config.yaml"))
	if !contains(cfg, "model: local-model", "provider: custom", "base_url: "+local.url) {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	if _, err := os.Stat(filepath.Join(home, ".env")); !os.IsNotExist(err) {
		t.Fatalf(".env written for a server without a key: %v", err)
	}
	if r := hermes(t, home, home, "-z", "hi"); r.code != 0 || strings.TrimSpace(r.stdout) != "hello from the local server" {
		t.Fatalf("after setup: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// hermes setup gateway is hermes gateway setup; for a script it needs
// the platform named.
func TestSetupGatewayWritesThePlatform(t *testing.T) {
	home := writeHome(t, setupConfig)
	r := hermes(t, home, home, "setup", "gateway", "--non-interactive")
	if r.code != 2 || !strings.Contains(r.stderr, "name the platform") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	r = hermes(t, home, home, "setup", "gateway", "telegram", "--non-interactive", "--token", "123456:ABCdef_token", "--allowed-users", "42")
	if r.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !strings.HasPrefix(cfg, setupConfig) || !strings.Contains(cfg, "telegram:") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	if env := readFile(t, filepath.Join(home, ".env")); !strings.Contains(env, "TELEGRAM_BOT_TOKEN=123456:ABCdef_token") {
		t.Fatalf(".env %q", env)
	}
}

// After the model, the wizard goes on to a chat platform: hermes gateway
// setup's questions on the same terminal, the token not shown.
func TestSetupWizardGoesOnToAChatPlatform(t *testing.T) {
	srv := keyedServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ready"})
	home := writeHome(t, setupConfig)
	const token = "123456:ABCdef_secret_token"
	term := startTerm(t, home, home, nil, "setup", "--provider", "custom", "--base-url", srv.URL(), "--api-key", setupKey, "--model", "model-a")
	term.waitFor("Anything else?")
	term.keys("Down", "Enter")
	term.waitFor("Chat platform", "telegram")
	term.keys("Enter")
	term.waitFor("Bot token")
	term.typeLine(token)
	term.waitFor("User ids allowed")
	term.typeLine("42")
	term.waitFor("Admin user ids")
	term.typeLine("")
	s := term.waitFor("Wrote gateway.platforms.telegram", "Anything else?")
	if strings.Contains(s, "ABCdef_secret") || strings.Contains(s, setupKey) {
		t.Fatalf("a secret shows on the screen:\n%s", s)
	}
	term.keys("Enter")
	term.waitFor("[exit 0]")
	if env := readFile(t, filepath.Join(home, ".env")); !contains(env, "TELEGRAM_BOT_TOKEN="+token, "HERMES_CUSTOM_API_KEY="+setupKey) {
		t.Fatalf(".env %q", env)
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !strings.HasPrefix(cfg, setupConfig) || !contains(cfg, "telegram:", "model: model-a") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
}

// On a terminal, setup tools is a list of boxes: Space turns the toolset
// under the cursor off, Enter writes the rest.
func TestSetupToolsInATerminal(t *testing.T) {
	home := writeHome(t, setupConfig)
	term := startTerm(t, home, home, nil, "setup", "tools")
	term.waitFor("Toolsets", "[x] clarify", "[x] web")
	// Where Chromium is installed the list starts with browser.
	s := term.waitUntil("the cursor", func(s string) bool { return contains(s, "> [x] browser") || contains(s, "> [x] clarify") })
	if strings.Contains(s, "> [x] browser") {
		term.keys("Down")
		term.waitFor("> [x] clarify")
	}
	term.keys("Space")
	term.waitFor("[ ] clarify")
	term.keys("Enter")
	term.waitFor("[exit 0]")
	cfg := readFile(t, filepath.Join(home, "config.yaml"))
	if !strings.HasPrefix(cfg, setupConfig) || !contains(cfg, "toolsets: [", "web", "terminal") || strings.Contains(cfg, "clarify") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
}
