package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Values the string settings may take.
var (
	approvalModes   = []string{"manual", "off"}
	unattendedModes = []string{"deny", "allow"}
	// terminalBackends are the backends this build implements.
	terminalBackends = []string{"local", "ssh", "docker"}
	cacheTTLs        = []string{"5m", "1h", "auto"}
	sandboxModes     = []string{"read-only", "workspace-write", "full-access"}
	searchBackends   = []string{"searxng", "brave", "tavily", "exa", "firecrawl"}
	// auxTasks are the auxiliary tasks that have a model of their own.
	auxTasks       = []string{"compression", "session_search", "title_generation", "vision", "web_extract"}
	toolProgress   = []string{"off", "new", "all", "verbose"}
	busyInputModes = []string{"queue", "interrupt", "steer"}
)

// validate checks the values the file set, before defaults fill the
// rest: a setting out of range is an error naming the key, the value and
// what is allowed, never silently replaced by its default. Keys the file
// leaves out hold their defaults, which are valid.
func (c *Config) validate(keys *keyIndex, file string) error {
	type problem struct {
		line int
		text string
	}
	var problems []problem
	bad := func(key, value, allowed string) {
		problems = append(problems, problem{keys.line(key),
			fmt.Sprintf("%s: %s: %s is not allowed (%s)", keys.at(file, key), key, value, allowed)})
	}
	atLeast := func(key string, v, lo int) {
		if v < lo {
			bad(key, fmt.Sprint(v), fmt.Sprintf("a whole number, at least %d", lo))
		}
	}
	oneOf := func(key, v string, allowed []string) {
		if v != "" && !slices.Contains(allowed, v) {
			bad(key, fmt.Sprintf("%q", v), "one of "+strings.Join(allowed, ", "))
		}
	}
	for _, r := range []struct {
		key   string
		v, lo int
	}{
		{"agent.max_turns", c.Agent.MaxTurns, 1},
		{"agent.tool_pool_size", c.Agent.ToolPoolSize, 1},
		{"agent.tool_timeout", c.Agent.ToolTimeout, 1},
		{"agent.max_tokens", c.Agent.MaxTokens, 0},
		{"model.context_length", c.Model.ContextLength, 0},
		{"model.max_tokens", c.Model.MaxTokens, 0},
		{"terminal.timeout", c.Terminal.Timeout, 1},
		{"terminal.max_output", c.Terminal.MaxOutput, 1},
		{"approvals.timeout", c.Approvals.Timeout, 1},
		{"delegation.max_iterations", c.Delegation.MaxIterations, 1},
		{"delegation.max_spawn_depth", c.Delegation.MaxSpawnDepth, 1},
		{"delegation.max_concurrent_children", c.Delegation.MaxConcurrentChildren, 1},
		{"delegation.timeout", c.Delegation.Timeout, 0},
		{"compression.protect_first_n", c.Compression.ProtectFirstN, 1},
		{"compression.protect_last_n", c.Compression.ProtectLastN, 1},
		{"tool_loop_guardrails.warn_after", c.Guardrails.WarnAfter, 1},
		{"tool_loop_guardrails.halt_after", c.Guardrails.HaltAfter, 1},
		{"checkpoints.max_files", c.Checkpoints.MaxFiles, 1},
		{"gateway.api_server.max_concurrent_runs", c.Gateway.APIServer.MaxConcurrentRuns, 1},
		{"gateway.api_server.queue_timeout", c.Gateway.APIServer.QueueTimeout, 1},
		{"gateway.max_concurrent_turns", c.Gateway.MaxConcurrentTurns, 1},
		{"web.max_urls", c.Web.MaxURLs, 0},
		{"web.timeout", c.Web.Timeout, 0},
		{"web.host_interval_ms", c.Web.HostIntervalMS, -1},
		{"web.summarize_over", c.Web.SummarizeOver, -1},
		{"web.search.max_results", c.Web.Search.MaxResults, 0},
	} {
		atLeast(r.key, r.v, r.lo)
	}
	c.validateBrowser(bad)
	if c.Checkpoints.MaxBytes < 1 {
		bad("checkpoints.max_bytes", fmt.Sprint(c.Checkpoints.MaxBytes), "a number of bytes, at least 1")
	}
	if s := c.Streaming.EditInterval; s <= 0 || s > 60 {
		bad("streaming.edit_interval", fmt.Sprint(s), "seconds between two edits of a streamed reply, more than 0 and at most 60, e.g. 0.8")
	}
	if t := c.Compression.Threshold; t <= 0 || t >= 1 {
		bad("compression.threshold", fmt.Sprint(t), "a fraction of the context window between 0 and 1, e.g. 0.5")
	}
	for i, h := range c.Hooks.PreToolCall {
		atLeast(fmt.Sprintf("hooks.pre_tool_call[%d].timeout", i), h.Timeout, 0)
	}
	for i, h := range c.Hooks.PostToolCall {
		atLeast(fmt.Sprintf("hooks.post_tool_call[%d].timeout", i), h.Timeout, 0)
	}
	for _, id := range sortedKeys(c.Providers) {
		atLeast("providers."+id+".request_timeout_seconds", c.Providers[id].RequestTimeout, 0)
	}
	for _, task := range sortedKeys(c.Auxiliary) {
		atLeast("auxiliary."+task+".timeout", c.Auxiliary[task].Timeout, 0)
	}
	if c.Web.MaxPageBytes < 0 {
		bad("web.max_page_bytes", fmt.Sprint(c.Web.MaxPageBytes), "a number of bytes, at least 1")
	}
	oneOf("web.search.backend", c.Web.Search.Backend, searchBackends)
	if u := c.Web.Search.SearxngURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		bad("web.search.searxng_url", fmt.Sprintf("%q", u), "an http or https URL")
	}
	for _, task := range sortedKeys(c.Auxiliary) {
		if !slices.Contains(auxTasks, task) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: auxiliary.%s: no task of that name is run (tasks: %s)", keys.at(file, "auxiliary."+task), task, strings.Join(auxTasks, ", ")))
		}
	}
	oneOf("approvals.mode", c.Approvals.Mode, approvalModes)
	oneOf("approvals.unattended_mode", c.Approvals.UnattendedMode, unattendedModes)
	if p := c.Gateway.APIServer.Port; p < 1 || p > 65535 {
		bad("gateway.api_server.port", fmt.Sprint(p), "a TCP port, 1 to 65535")
	}
	for i, o := range c.Gateway.APIServer.CORSOrigins {
		if o != "*" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			bad(fmt.Sprintf("gateway.api_server.cors_origins[%d]", i), fmt.Sprintf("%q", o), "an origin such as https://chat.example.com")
		}
	}
	oneOf("terminal.backend", c.Terminal.Backend, terminalBackends)
	c.validateSSH(bad)
	oneOf("prompt_caching.cache_ttl", c.PromptCaching.CacheTTL, cacheTTLs)
	oneOf("sandbox.mode", c.Sandbox.Mode, sandboxModes)
	c.validateNetwork(keys, bad)
	oneOf("display.tool_progress", c.Display.ToolProgress, toolProgress)
	oneOf("display.busy_input_mode", c.Display.BusyInputMode, busyInputModes)
	for i, r := range c.Sandbox.WritableRoots {
		if !strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "~/") {
			bad(fmt.Sprintf("sandbox.writable_roots[%d]", i), fmt.Sprintf("%q", r), "an absolute path or one under ~/")
		}
	}
	c.validateDocker(bad)
	c.validateMCP(bad)
	c.validateCron(bad)
	c.validateWebhooks(bad)
	c.validateLogging(bad)
	if len(problems) == 0 {
		return nil
	}
	slices.SortStableFunc(problems, func(a, b problem) int { return a.line - b.line })
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.text
	}
	return errors.New(strings.Join(texts, "\n"))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
