package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// Config is the whole of config.yaml.
type Config struct {
	Model    Model  `yaml:"model"`
	Provider string `yaml:"provider"`
	BaseURL  string `yaml:"base_url"`
	APIKey   string `yaml:"api_key"`
	APIMode  string `yaml:"api_mode"`

	Agent         Agent         `yaml:"agent"`
	Terminal      Terminal      `yaml:"terminal"`
	Code          Code          `yaml:"code"`
	Sandbox       Sandbox       `yaml:"sandbox"`
	Approvals     Approvals     `yaml:"approvals"`
	Security      Security      `yaml:"security"`
	Delegation    Delegation    `yaml:"delegation"`
	Compression   Compression   `yaml:"compression"`
	PromptCaching PromptCaching `yaml:"prompt_caching"`
	Hooks         Hooks         `yaml:"hooks"`
	Guardrails    Guardrails    `yaml:"tool_loop_guardrails"`
	Checkpoints   Checkpoints   `yaml:"checkpoints"`
	Gateway       Gateway       `yaml:"gateway"`
	Web           Web           `yaml:"web"`
	Browser       Browser       `yaml:"browser"`
	Display       Display       `yaml:"display"`
	Streaming     Streaming     `yaml:"streaming"`
	Cron          Cron          `yaml:"cron"`
	Webhooks      Webhooks      `yaml:"webhooks"`
	Logging       Logging       `yaml:"logging"`

	CommandAllowlist  []string                `yaml:"command_allowlist"`
	FallbackProviders []FallbackProvider      `yaml:"fallback_providers"`
	Providers         map[string]ProviderConf `yaml:"providers"`
	Auxiliary         map[string]Auxiliary    `yaml:"auxiliary"`
	Toolsets          []string                `yaml:"toolsets"`

	// MCPServers are the MCP servers whose tools are offered, by name.
	MCPServers map[string]MCPServer `yaml:"mcp_servers"`
	// MCPStartupTimeout is how long the first prompt waits for MCP
	// servers still starting (seconds, default 10); later ones join when
	// ready.
	MCPStartupTimeout int    `yaml:"mcp_startup_timeout"`
	Skills            Skills `yaml:"skills"`

	// Home is HERMES_HOME; Path the file read (empty when none existed).
	Home string `yaml:"-"`
	Path string `yaml:"-"`
	// Warnings lists unknown keys and other non-fatal problems.
	Warnings []string `yaml:"-"`
}

// Model is the model: key, either a plain name or a mapping.
type Model struct {
	Name          string `yaml:"default"`
	Provider      string `yaml:"provider"`
	BaseURL       string `yaml:"base_url"`
	APIMode       string `yaml:"api_mode"`
	ContextLength int    `yaml:"context_length"`
	MaxTokens     int    `yaml:"max_tokens"`
	// Vision says whether the model accepts images (nil: known model
	// families do).
	Vision *bool `yaml:"vision"`
}

// UnmarshalYAML accepts `model: name` and `model: {default: name, ...}`.
func (m *Model) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if n.Kind == yaml.ScalarNode && n.Decode(&s) == nil {
		m.Name = s
		return nil
	}
	var p modelDoc
	if err := n.Decode(&p); err != nil {
		return err
	}
	*m = Model{Name: p.Default, Provider: p.Provider, BaseURL: p.BaseURL, APIMode: p.APIMode, ContextLength: p.ContextLength, MaxTokens: p.MaxTokens, Vision: p.Vision}
	if m.Name == "" {
		m.Name = p.Name
	}
	return nil
}

// modelDoc is the mapping form of model:.
type modelDoc struct {
	Default       string `yaml:"default"`
	Name          string `yaml:"name"`
	Provider      string `yaml:"provider"`
	BaseURL       string `yaml:"base_url"`
	APIMode       string `yaml:"api_mode"`
	ContextLength int    `yaml:"context_length"`
	MaxTokens     int    `yaml:"max_tokens"`
	Vision        *bool  `yaml:"vision"`
}

// Agent holds agent.* keys.
type Agent struct {
	MaxTurns               int    `yaml:"max_turns"`
	ToolPoolSize           int    `yaml:"tool_pool_size"`
	BudgetWarnings         *bool  `yaml:"budget_warnings"`
	ReasoningEffort        string `yaml:"reasoning_effort"`
	KeepPartialOnInterrupt bool   `yaml:"keep_partial_on_interrupt"`
	SystemPrompt           string `yaml:"system_prompt"`
	MaxTokens              int    `yaml:"max_tokens"`
	// ToolTimeout bounds one tool call (seconds).
	ToolTimeout int `yaml:"tool_timeout"`
	// APIMaxRetries is how many times a failed model call is retried on
	// one endpoint before it fails or falls back; nil means the provider
	// layer's default (3), 0 none.
	APIMaxRetries *int `yaml:"api_max_retries"`
}

// Terminal holds terminal.* keys.
type Terminal struct {
	Timeout int    `yaml:"timeout"` // seconds
	Backend string `yaml:"backend"`
	// Docker is terminal.docker: the container of the docker backend.
	Docker    TerminalDocker `yaml:"docker"`
	MaxOutput int            `yaml:"max_output"`
	// EnvPassthrough names secret-looking environment variables that
	// commands may still see (they are dropped otherwise).
	EnvPassthrough []string `yaml:"env_passthrough"`
	// ForwardEnv names the variables of hermes' environment a remote
	// backend's commands get (path.Match patterns); none travel otherwise.
	ForwardEnv []string `yaml:"forward_env"`
	// SSH is terminal.ssh: the host of the ssh backend.
	SSH SSH `yaml:"ssh"`
}

// Code holds code.* keys: the execute_code tool's interpreter and
// limits (zero: python3 on PATH, 300 s, 50 tool calls, 50 KB of stdout,
// 10 KB of stderr).
type Code struct {
	Python       string `yaml:"python"`
	Timeout      int    `yaml:"timeout"` // seconds
	MaxToolCalls int    `yaml:"max_tool_calls"`
	MaxStdout    int    `yaml:"max_stdout"` // bytes
	MaxStderr    int    `yaml:"max_stderr"` // bytes
}

// Sandbox holds sandbox.* keys: the boundary around every command the
// agent runs and every file tool write.
type Sandbox struct {
	// Mode is read-only, workspace-write (default) or full-access.
	Mode string `yaml:"mode"`
	// WritableRoots are more trees commands may write in workspace-write.
	WritableRoots []string `yaml:"writable_roots"`
	// Network is what network commands get: on, off or allowlist (the
	// default in workspace-write: package registries, forges and
	// Network.Allow, through a proxy), with the allowlist.
	Network Network `yaml:"network"`
	// Required refuses to run commands where the kernel cannot enforce
	// the sandbox.
	Required bool `yaml:"required"`
}

// Approvals holds approvals.* keys.
type Approvals struct {
	Mode    string `yaml:"mode"`    // manual | off
	Timeout int    `yaml:"timeout"` // seconds
	// UnattendedMode is what surfaces nobody attends (the API server) do
	// with a command that needs approval: deny (default) or allow
	// (hardline commands are refused either way; the sandbox stays).
	UnattendedMode string `yaml:"unattended_mode"`
}

// APIServer holds gateway.api_server.* keys: the OpenAI-compatible HTTP
// server (hermes serve, or hermes gateway when enabled).
type APIServer struct {
	// Enabled starts it with hermes gateway (API_SERVER_ENABLED=true too).
	Enabled bool `yaml:"enabled"`
	// Host and Port are where it listens (default 127.0.0.1:8642). An
	// address other than loopback also needs AllowPublic.
	Host        string `yaml:"host"`
	Port        int    `yaml:"port"`
	AllowPublic bool   `yaml:"allow_public"`
	// Key is the bearer key every request must carry (API_SERVER_KEY
	// wins); without one the server does not start.
	Key string `yaml:"key"`
	// CORSOrigins are the browser origins allowed to call it (none by
	// default; API_SERVER_CORS_ORIGINS, comma-separated, fills it).
	CORSOrigins []string `yaml:"cors_origins"`
	// ModelName is the model the server reports (default hermes-agent).
	ModelName string `yaml:"model_name"`
	// MaxConcurrentRuns bounds the turns running at once (default 10); a
	// request over it waits up to QueueTimeout seconds (default 10), then
	// gets 429.
	MaxConcurrentRuns int `yaml:"max_concurrent_runs"`
	QueueTimeout      int `yaml:"queue_timeout"`
}

// Security holds security.* keys.
type Security struct {
	RedactSecrets *bool `yaml:"redact_secrets"`
}

// Delegation holds delegation.* keys.
type Delegation struct {
	MaxIterations         int  `yaml:"max_iterations"`
	MaxSpawnDepth         int  `yaml:"max_spawn_depth"`
	MaxConcurrentChildren int  `yaml:"max_concurrent_children"`
	SubagentAutoApprove   bool `yaml:"subagent_auto_approve"`
	Timeout               int  `yaml:"timeout"` // seconds per child, 0 = none
}

// Compression holds compression.* keys.
type Compression struct {
	Enabled       *bool   `yaml:"enabled"`
	Threshold     float64 `yaml:"threshold"`
	ProtectLastN  int     `yaml:"protect_last_n"`
	ProtectFirstN int     `yaml:"protect_first_n"`
}

// PromptCaching holds prompt_caching.* keys.
type PromptCaching struct {
	CacheTTL string `yaml:"cache_ttl"`
}

// Hooks holds shell hooks.
type Hooks struct {
	PreToolCall  []ShellHook `yaml:"pre_tool_call"`
	PostToolCall []ShellHook `yaml:"post_tool_call"`
}

// ShellHook is one hook command: run when the tool name matches Matcher
// (a regular expression; empty matches every tool).
type ShellHook struct {
	Matcher string `yaml:"matcher"`
	Command string `yaml:"command"`
	Timeout int    `yaml:"timeout"` // seconds
	// FailOpen lets the call run when a pre_tool_call hook fails or times
	// out (default: the call is blocked).
	FailOpen bool `yaml:"fail_open"`
}

// Checkpoints holds checkpoints.* keys: snapshots of the workspace taken
// before the agent changes it (package checkpoint).
type Checkpoints struct {
	Enabled *bool `yaml:"enabled"`
	// MaxFiles and MaxBytes cap the workspace snapshotted; a larger one is
	// skipped with a warning.
	MaxFiles int   `yaml:"max_files"`
	MaxBytes int64 `yaml:"max_bytes"`
}

// Web holds web.* keys: web_extract, web_search and the guard that keeps
// them off local and private addresses.
type Web struct {
	// AllowPrivate lets the web tools reach loopback, private, link-local
	// and CGNAT addresses (cloud metadata stays refused).
	AllowPrivate bool `yaml:"allow_private"`
	// MaxURLs is how many pages one web_extract call fetches (default 5).
	MaxURLs int `yaml:"max_urls"`
	// MaxPageBytes caps what is read of one page (default 2 MiB).
	MaxPageBytes int64 `yaml:"max_page_bytes"`
	// Timeout bounds one page (seconds, default 20).
	Timeout int `yaml:"timeout"`
	// HostIntervalMS spaces requests to one host (milliseconds, default
	// 1000; -1: none).
	HostIntervalMS int `yaml:"host_interval_ms"`
	// SummarizeOver is the page length (characters) above which
	// auxiliary.web_extract summarises it (default 5000; -1: never).
	SummarizeOver int       `yaml:"summarize_over"`
	Search        WebSearch `yaml:"search"`
}

// Browser holds browser.* keys: the Chromium the browser tools drive.
// Pages reach only what web.allow_private allows.
type Browser struct {
	// Executable is the Chromium or Chrome to start (a path or a name on
	// PATH; default CHROME_PATH, then chromium, chromium-browser,
	// google-chrome on PATH).
	Executable string `yaml:"executable"`
	// CDPURL attaches to a browser the user started with
	// --remote-debugging-port (http://127.0.0.1:9222 or ws://...), with
	// that browser's profile, instead of starting one.
	CDPURL string `yaml:"cdp_url"`
	// IdleTimeout closes a conversation's browser after this many seconds
	// unused (default 120; 0 keeps it until the conversation ends).
	IdleTimeout *int `yaml:"idle_timeout"`
	// Headless runs the browser without a window (default true).
	Headless *bool `yaml:"headless"`
}

// WebSearch holds web.search.* keys. Without a backend named, the first
// configured one is used: searxng_url (or SEARXNG_URL), then a key for
// Brave (BRAVE_API_KEY), Tavily (TAVILY_API_KEY), Exa (EXA_API_KEY) or
// Firecrawl (FIRECRAWL_API_KEY). With none, web_search is not offered.
type WebSearch struct {
	Backend    string `yaml:"backend"`
	SearxngURL string `yaml:"searxng_url"`
	// BaseURL overrides a keyed backend's endpoint.
	BaseURL string `yaml:"base_url"`
	APIKey  string `yaml:"api_key"`
	// KeyEnv names the variable holding the key (default per backend).
	KeyEnv     string `yaml:"key_env"`
	MaxResults int    `yaml:"max_results"`
}

// Display holds display.* keys: how the interactive terminal UI shows a
// conversation.
type Display struct {
	// ShowReasoning shows the model's reasoning (dimmed, collapsible);
	// nil means shown.
	ShowReasoning *bool `yaml:"show_reasoning"`
	// ToolProgress is how much of each tool call is shown: off, new (the
	// first call of each tool in a turn), all (default) or verbose (with
	// arguments and results).
	ToolProgress string `yaml:"tool_progress"`
	// BusyInputMode is what a message sent while a turn runs does: queue
	// (it is sent when the turn ends), interrupt (the turn stops at the
	// next tool boundary and the message is the next turn) or steer (it is
	// added to the running turn at its next model call). Empty means each
	// surface's default (BusyMode): queue in the terminal UI and the line
	// chat, interrupt in the gateway. The terminal surfaces do not steer:
	// there steer queues.
	BusyInputMode string `yaml:"busy_input_mode"`
}

// BusyMode is display.busy_input_mode, or surfaceDefault when it is not
// set.
func (d Display) BusyMode(surfaceDefault string) string {
	return cmp.Or(d.BusyInputMode, surfaceDefault)
}

// Guardrails holds tool_loop_guardrails.* keys.
type Guardrails struct {
	WarnAfter int `yaml:"warn_after"`
	HaltAfter int `yaml:"halt_after"`
}

// FallbackProvider is one entry of fallback_providers.
type FallbackProvider struct {
	Provider string `yaml:"provider"`
	Model    string `yaml:"model"`
	BaseURL  string `yaml:"base_url"`
	KeyEnv   string `yaml:"key_env"`
	APIMode  string `yaml:"api_mode"`
}

// ProviderConf is providers.<id>.
type ProviderConf struct {
	BaseURL string `yaml:"base_url"`
	KeyEnv  string `yaml:"key_env"`
	KeyCmd  string `yaml:"key_cmd"`
	APIMode string `yaml:"api_mode"`
	// RequestTimeout is seconds per model call.
	RequestTimeout int `yaml:"request_timeout_seconds"`
}

// Auxiliary is auxiliary.<task>.
type Auxiliary struct {
	Provider          string             `yaml:"provider"`
	Model             string             `yaml:"model"`
	BaseURL           string             `yaml:"base_url"`
	APIMode           string             `yaml:"api_mode"`
	Timeout           int                `yaml:"timeout"`
	FallbackProviders []FallbackProvider `yaml:"fallback_providers"`
}

// Default returns the configuration used when config.yaml says nothing.
func Default() *Config {
	t := true
	return &Config{
		Agent:     Agent{MaxTurns: 500, ToolPoolSize: 128, BudgetWarnings: &t, ToolTimeout: 420},
		Terminal:  Terminal{Timeout: 180, Backend: "local", MaxOutput: 50_000},
		Approvals: Approvals{Mode: "manual", Timeout: 300, UnattendedMode: "deny"},
		Gateway: Gateway{APIServer: APIServer{Host: "127.0.0.1", Port: 8642, ModelName: "hermes-agent",
			MaxConcurrentRuns: 10, QueueTimeout: 10}, GroupSessionsPerUser: &t, MaxConcurrentTurns: 10,
			Platforms: Platforms{Telegram: Telegram{WebhookListen: DefaultTelegramWebhookListen},
				Slack: Slack{Mode: "socket", EventsListen: DefaultSlackEventsListen}}},
		Security:      Security{RedactSecrets: &t},
		Delegation:    Delegation{MaxIterations: 50, MaxSpawnDepth: 1, MaxConcurrentChildren: 3},
		Compression:   Compression{Enabled: &t, Threshold: 0.50, ProtectLastN: 20, ProtectFirstN: 3},
		PromptCaching: PromptCaching{CacheTTL: "5m"},
		Guardrails:    Guardrails{WarnAfter: 2, HaltAfter: 5},
		Checkpoints:   Checkpoints{Enabled: &t, MaxFiles: 50_000, MaxBytes: 500 << 20},
		Display:       Display{ShowReasoning: &t, ToolProgress: "all"},
		Streaming:     Streaming{Enabled: &t, EditInterval: 0.8},

		MCPStartupTimeout: DefaultMCPStartupTimeout,
	}
}

// Home returns HERMES_HOME, or ~/.hermes.
func Home(getenv func(string) string) string {
	if h := getenv("HERMES_HOME"); h != "" {
		return h
	}
	if d, err := os.UserHomeDir(); err == nil {
		return filepath.Join(d, ".hermes")
	}
	return ".hermes"
}

// Load reads HERMES_HOME/config.yaml over the defaults. A missing file,
// an empty one or one holding only comments means the defaults.
// Environment variables fill what the file leaves unset. Keys nothing
// reads, at any depth, are warnings (Config.Warnings); a value out of
// range is an error naming the key, its line and what is allowed.
func Load(home string, getenv func(string) string) (*Config, error) {
	c := Default()
	path := filepath.Join(home, "config.yaml")
	b, err := os.ReadFile(path)
	var keys *keyIndex
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("config: %w", err)
	default:
		if keys, err = c.decode(b, path); err != nil {
			return nil, err
		}
		c.Path = path
	}
	c.Home = home
	c.applyEnv(getenv)
	if err := c.validateGateway(keys, path); err != nil {
		return nil, err
	}
	c.fillDefaults()
	return c, nil
}

// decode reads the file's settings over c and returns where its keys
// are. A document without a body (empty, comments only) leaves c as it
// is: decoding it would zero c.
func (c *Config) decode(b []byte, path string) (*keyIndex, error) {
	doc, err := parseDocument(b)
	if err != nil {
		return nil, fmt.Errorf("config %s:\n%s", path, formatYAMLError(err, b))
	}
	if doc == nil {
		return nil, nil
	}
	quotedNumbers(doc.Content[0], reflect.TypeFor[Config]())
	if err := doc.Decode(c); err != nil {
		return nil, fmt.Errorf("config %s:\n%s", path, formatYAMLError(err, b))
	}
	keys := checkKeys(doc.Content[0], path)
	c.Warnings = append(c.Warnings, keys.warnings...)
	if err := c.validate(keys, path); err != nil {
		return nil, err
	}
	return keys, nil
}

// applyEnv fills values the file left empty from the environment.
func (c *Config) applyEnv(getenv func(string) string) {
	if c.Model.Name == "" {
		c.Model.Name = getenv("HERMES_MODEL")
	}
	if c.BaseURL == "" && c.Model.BaseURL == "" {
		c.BaseURL = getenv("OPENAI_BASE_URL")
	}
	if c.Provider == "" && c.Model.Provider == "" {
		c.Provider = getenv("HERMES_PROVIDER")
	}
	a := &c.Gateway.APIServer
	if k := getenv("API_SERVER_KEY"); k != "" {
		a.Key = k
	}
	if v := getenv("API_SERVER_CORS_ORIGINS"); v != "" && len(a.CORSOrigins) == 0 {
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				a.CORSOrigins = append(a.CORSOrigins, o)
			}
		}
	}
	if v := strings.ToLower(getenv("API_SERVER_ENABLED")); v == "true" || v == "1" || v == "yes" {
		a.Enabled = true
	}
	if v := strings.ToLower(getenv("HERMES_WEB_ALLOW_PRIVATE")); v == "1" || v == "true" || v == "yes" {
		c.Web.AllowPrivate = true
	}
	c.Gateway.applyEnv(getenv)
	c.Webhooks.applyEnv(getenv)
}

func (c *Config) fillDefaults() {
	d := Default()
	c.Provider = cmp.Or(c.Provider, c.Model.Provider)
	c.BaseURL = cmp.Or(c.BaseURL, c.Model.BaseURL)
	c.APIMode = cmp.Or(c.APIMode, c.Model.APIMode)
	c.Agent.MaxTokens = cmp.Or(c.Agent.MaxTokens, c.Model.MaxTokens)
	for _, p := range []struct {
		v   *int
		def int
	}{
		{&c.Agent.MaxTurns, d.Agent.MaxTurns}, {&c.Agent.ToolPoolSize, d.Agent.ToolPoolSize},
		{&c.Agent.ToolTimeout, d.Agent.ToolTimeout}, {&c.Terminal.Timeout, d.Terminal.Timeout},
		{&c.Terminal.MaxOutput, d.Terminal.MaxOutput}, {&c.Approvals.Timeout, d.Approvals.Timeout},
		{&c.Delegation.MaxIterations, d.Delegation.MaxIterations}, {&c.Delegation.MaxSpawnDepth, d.Delegation.MaxSpawnDepth},
		{&c.Delegation.MaxConcurrentChildren, d.Delegation.MaxConcurrentChildren},
		{&c.Compression.ProtectLastN, d.Compression.ProtectLastN}, {&c.Compression.ProtectFirstN, d.Compression.ProtectFirstN},
		{&c.Guardrails.WarnAfter, d.Guardrails.WarnAfter}, {&c.Guardrails.HaltAfter, d.Guardrails.HaltAfter},
		{&c.Gateway.APIServer.Port, d.Gateway.APIServer.Port},
		{&c.Gateway.APIServer.MaxConcurrentRuns, d.Gateway.APIServer.MaxConcurrentRuns},
		{&c.Gateway.APIServer.QueueTimeout, d.Gateway.APIServer.QueueTimeout},
		{&c.Gateway.MaxConcurrentTurns, d.Gateway.MaxConcurrentTurns},
		{&c.MCPStartupTimeout, d.MCPStartupTimeout},
	} {
		if *p.v <= 0 {
			*p.v = p.def
		}
	}
	for _, p := range []struct{ v, def **bool }{
		{&c.Agent.BudgetWarnings, &d.Agent.BudgetWarnings}, {&c.Security.RedactSecrets, &d.Security.RedactSecrets},
		{&c.Compression.Enabled, &d.Compression.Enabled}, {&c.Display.ShowReasoning, &d.Display.ShowReasoning},
		{&c.Gateway.GroupSessionsPerUser, &d.Gateway.GroupSessionsPerUser}, {&c.Streaming.Enabled, &d.Streaming.Enabled},
	} {
		if *p.v == nil {
			*p.v = *p.def
		}
	}
	if c.Compression.Threshold <= 0 || c.Compression.Threshold >= 1 {
		c.Compression.Threshold = d.Compression.Threshold
	}
	c.Approvals.Mode = cmp.Or(c.Approvals.Mode, d.Approvals.Mode)
	c.Approvals.UnattendedMode = cmp.Or(c.Approvals.UnattendedMode, d.Approvals.UnattendedMode)
	c.Gateway.APIServer.Host = cmp.Or(c.Gateway.APIServer.Host, d.Gateway.APIServer.Host)
	c.Gateway.APIServer.ModelName = cmp.Or(c.Gateway.APIServer.ModelName, d.Gateway.APIServer.ModelName)
	c.PromptCaching.CacheTTL = cmp.Or(c.PromptCaching.CacheTTL, d.PromptCaching.CacheTTL)
	c.Display.ToolProgress = cmp.Or(c.Display.ToolProgress, d.Display.ToolProgress)
	if c.Streaming.EditInterval <= 0 {
		c.Streaming.EditInterval = d.Streaming.EditInterval
	}
	p, dp := &c.Gateway.Platforms, &d.Gateway.Platforms
	p.Slack.Mode = cmp.Or(p.Slack.Mode, dp.Slack.Mode)
	p.Slack.EventsListen = cmp.Or(p.Slack.EventsListen, dp.Slack.EventsListen)
	p.Telegram.WebhookListen = cmp.Or(p.Telegram.WebhookListen, dp.Telegram.WebhookListen)
}

// Seconds converts a seconds setting to a Duration.
func Seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// LoadDotEnv reads KEY=VALUE lines from path into a map. Missing file: empty map.
func LoadDotEnv(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		env[strings.TrimSpace(k)] = v
	}
	return env, nil
}
