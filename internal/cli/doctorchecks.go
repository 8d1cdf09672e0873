package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/skills"
)

// Disk space below which doctor fails, and below which it warns.
const (
	diskFailBytes = 100 << 20
	diskWarnBytes = 1 << 30
)

// providerTimeout bounds the one call that proves the provider answers.
const providerTimeout = 20 * time.Second

// runChecks runs every check in order. A check that cannot run because
// an earlier one failed (no config, no key) says so.
func runChecks(ctx context.Context, e *env) []finding {
	home := config.Home(e.getenv)
	var out []finding
	out = append(out, checkHome(home))

	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		out = append(out, fail("config", err.Error(), "correct config.yaml as the message says (hermes config check shows it again)"))
		cfg = nil
	} else {
		detail := "config.yaml is valid"
		if cfg.Path == "" {
			detail = "no config.yaml: the defaults apply"
		}
		if len(cfg.Warnings) > 0 {
			detail += fmt.Sprintf(" (%d warning(s): %s)", len(cfg.Warnings), strings.Join(cfg.Warnings, "; "))
		}
		out = append(out, pass("config", detail))
	}
	out = append(out, checkConfigMode(filepath.Join(home, "config.yaml"), cfg != nil && cfg.APIKey != ""))
	out = append(out, privateFile("env_mode", filepath.Join(home, ".env"), "API keys"))
	out = append(out, privateFile("auth_mode", filepath.Join(home, provider.PoolFileName), "the key pools"))
	if cfg == nil {
		out = append(out, fail("api_key", "not checked: config.yaml does not load", "fix config.yaml first"),
			fail("provider", "not checked: config.yaml does not load", "fix config.yaml first"))
	} else {
		out = append(out, checkProvider(ctx, e, cfg)...)
		out = append(out, checkSandbox(e, cfg))
		out = append(out, checkMCP(ctx, e, cfg)...)
		out = append(out, checkSkills(cfg))
	}
	out = append(out, checkStore(ctx, "session_store", filepath.Join(home, "state.db"), true))
	out = append(out, checkStore(ctx, "gateway_store", gateway.StorePath(home), false))
	out = append(out, checkStore(ctx, "cron_store", cron.StorePath(home), false))
	out = append(out, checkDisk(home))
	out = append(out, checkPeers(e, cfg)...)
	return out
}

// checkConfigMode fails a config.yaml others may write (they could point
// base_url elsewhere), or read when it holds api_key; the repair takes
// those bits away.
func checkConfigMode(path string, holdsKey bool) finding {
	if holdsKey {
		return privateFile("config_mode", path, "api_key")
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return pass("config_mode", path+" does not exist")
	case err != nil:
		return fail("config_mode", err.Error(), "check the permissions of "+path)
	case fi.Mode().Perm()&0o022 != 0:
		mode := fi.Mode().Perm() &^ 0o022
		f := fail("config_mode", fmt.Sprintf("%s is mode %#o: other users can change it (its base_url, its commands)", path, fi.Mode().Perm()),
			fmt.Sprintf("chmod go-w %s (hermes doctor --fix does it)", path))
		f.repair = func() (string, error) {
			if err := os.Chmod(path, mode); err != nil {
				return "", err
			}
			return fmt.Sprintf("chmod %#o %s", mode, path), nil
		}
		return f
	}
	return pass("config_mode", fmt.Sprintf("%s is mode %#o", path, fi.Mode().Perm()))
}

func checkHome(home string) finding {
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, os.ErrNotExist):
		f := fail("home", home+" does not exist", "mkdir -m 700 "+home+" (hermes doctor --fix does it; any run creates it too)")
		f.repair = func() (string, error) {
			if err := os.MkdirAll(home, 0o700); err != nil {
				return "", err
			}
			return "created " + home, nil
		}
		return f
	case err != nil:
		return fail("home", err.Error(), "check the permissions of "+home)
	case !fi.IsDir():
		return fail("home", home+" is not a directory", "move it aside, or point HERMES_HOME elsewhere")
	}
	if unix.Access(home, unix.W_OK) != nil {
		return fail("home", home+" cannot be written (sessions and logs go there)", "chown or chmod u+w "+home)
	}
	return pass("home", home)
}

// checkProvider finds the key for the chosen provider (never showing it)
// and makes one cheap call: the model list, else a one-token completion.
func checkProvider(ctx context.Context, e *env, cfg *config.Config) []finding {
	entries, found, _, err := app.ResolveEndpoints(ctx, cfg, e.getenv, true)
	if err != nil {
		msg := err.Error()
		fix := "set the provider's key in " + filepath.Join(cfg.Home, ".env") + " (e.g. OPENAI_API_KEY=...), or hermes auth add PROVIDER"
		if errors.Is(err, provider.ErrNoProvider) {
			msg = "no model provider configured: no provider key in the environment or .env, and no local model server answered"
			fix = "set a provider's key in " + filepath.Join(cfg.Home, ".env") + " (OPENROUTER_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY), name a provider in config.yaml, or start a local model server (ollama serve)"
		}
		return []finding{fail("api_key", firstLine(msg), fix), fail("provider", "not checked: no endpoint to call", "fix the key first")}
	}
	ep := entries[0]
	var key finding
	switch {
	case ep.Pool != nil:
		key = pass("api_key", fmt.Sprintf("%s: a pool of %d key(s) (hermes auth list)", ep.Provider, ep.Pool.Len()))
	case ep.KeyEnv != "" && ep.APIKey != "":
		key = pass("api_key", fmt.Sprintf("%s: %s is set", ep.Provider, ep.KeyEnv))
	case ep.KeyCmd != "":
		key = pass("api_key", fmt.Sprintf("%s: providers.%s.key_cmd gave a key", ep.Provider, ep.Provider))
	case ep.APIKey != "":
		key = pass("api_key", fmt.Sprintf("%s: a key is set (api_key or --api-key)", ep.Provider))
	default:
		key = pass("api_key", fmt.Sprintf("%s needs no key", ep.Provider))
	}
	if found != nil {
		key.Detail += "; local server found: " + found.String()
	}
	if ep.Pool != nil {
		// Probe with the key a run would use now.
		if k, ok := ep.Pool.Pick(); ok {
			ep.APIKey = k.Key
		}
	}
	return []finding{key, probeProvider(ctx, ep)}
}

// probeProvider proves the endpoint answers and serves the model.
func probeProvider(ctx context.Context, ep provider.Endpoint) finding {
	ctx, cancel := context.WithTimeout(ctx, providerTimeout)
	defer cancel()
	where := fmt.Sprintf("%s/%s at %s", ep.Provider, ep.Model, ep.BaseURL)
	if ep.APIMode != llm.AnthropicMessages {
		if models, err := provider.ListModels(ctx, ep.BaseURL, ep.APIKey); err == nil && len(models) > 0 {
			if slices.Contains(models, ep.Model) {
				return pass("provider", where+": reachable, the model is listed")
			}
			shown := models
			if len(shown) > 8 {
				shown = append(shown[:8:8], "...")
			}
			return fail("provider", fmt.Sprintf("%s: reachable, but the model is not among the %d it offers (%s)", where, len(models), strings.Join(shown, ", ")),
				"set model.default in config.yaml to one the provider offers (hermes model lists them)")
		}
	}
	// No model list here: one completion of one token.
	cl, err := transport.New(ep.APIMode, ep.Options())
	if err != nil {
		return fail("provider", fmt.Sprintf("%s: %v", where, err), "check api_mode in config.yaml")
	}
	req := &llm.Request{Model: ep.Model, MaxTokens: 1, Messages: []llm.Message{llm.User("Reply with OK.")}}
	if _, err := cl.Complete(ctx, req, nil); err != nil {
		return fail("provider", where+": "+callProblem(ep, err), callFix(err))
	}
	return pass("provider", where+": answered a one-token call")
}

// callProblem describes a failed call without any part of the key (some
// providers echo a masked key in their 401 message).
func callProblem(ep provider.Endpoint, err error) string {
	err = llm.ClassifyErr(ep.Provider, err)
	pe, ok := llm.AsProviderError(err)
	if !ok {
		return redactKey(err.Error(), ep.APIKey)
	}
	if pe.Kind == llm.ErrAuth {
		return fmt.Sprintf("the provider refused the key (HTTP %d)", pe.StatusCode)
	}
	return redactKey(firstLine(pe.Error()), ep.APIKey)
}

func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[key]")
}

func callFix(err error) string {
	if pe, ok := llm.AsProviderError(llm.ClassifyErr("", err)); ok {
		switch pe.Kind {
		case llm.ErrAuth:
			return "replace the key in .env (or hermes auth add PROVIDER a working one)"
		case llm.ErrModelNotFound:
			return "set model.default in config.yaml to a model the provider serves"
		case llm.ErrRateLimit, llm.ErrBilling:
			return "wait for the limit to reset, add credit, or add another key: hermes auth add PROVIDER"
		case llm.ErrConnection, llm.ErrTimeout:
			return "check base_url and that the server runs (and the network to it)"
		}
	}
	return "check base_url, api_mode and the model in config.yaml"
}

func checkSandbox(e *env, cfg *config.Config) finding {
	wd, err := os.Getwd()
	if err != nil {
		return fail("sandbox", err.Error(), "run hermes from a directory that exists")
	}
	p, err := app.SandboxPolicy(cfg, wd, e.getenv)
	if err != nil {
		return fail("sandbox", err.Error(), "correct sandbox.* in config.yaml")
	}
	enf := sandbox.Probe().Enforcement(p)
	detail := enf.String()
	switch {
	case p.Mode == sandbox.FullAccess:
		return warnf("sandbox", detail, "sandbox.mode: workspace-write in config.yaml keeps commands inside the workspace")
	case enf.Short() && p.Required:
		return fail("sandbox", detail+"; sandbox.required refuses commands here",
			"run on a kernel with Landlock and user namespaces, or unset sandbox.required")
	case enf.Short():
		return warnf("sandbox", detail,
			"run on a kernel with Landlock (5.13+) and unprivileged user namespaces for the whole sandbox")
	}
	return pass("sandbox", detail)
}

// checkMCP starts each configured (enabled) MCP server as a session would
// and reports whether it listed its tools.
func checkMCP(ctx context.Context, e *env, cfg *config.Config) []finding {
	if len(cfg.MCPServers) == 0 {
		return nil
	}
	quiet := *e
	quiet.stderr = discard{}
	st, _, err := connectServers(ctx, &quiet, cfg, "")
	if err != nil {
		return []finding{fail("mcp", err.Error(), "correct mcp_servers in config.yaml")}
	}
	var out []finding
	for _, s := range st {
		name := "mcp:" + s.Name
		if s.State == mcp.Ready {
			out = append(out, pass(name, fmt.Sprintf("started, %d tool(s)", s.Tools)))
			continue
		}
		out = append(out, fail(name, fmt.Sprintf("%s: %s", s.State, s.Err),
			fmt.Sprintf("check mcp_servers.%s (command, url, env) in config.yaml; hermes mcp test %s shows the details", s.Name, s.Name)))
	}
	return out
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func checkSkills(cfg *config.Config) finding {
	wd, _ := os.Getwd()
	list, notes := skills.New(cfg.Home, wd, cfg.Skills.ExternalDirs).List()
	if len(notes) > 0 {
		return fail("skills", fmt.Sprintf("%d skill(s) load; %d problem(s): %s", len(list), len(notes), strings.Join(notes, "; ")),
			"correct or remove the SKILL.md files named (front matter: name, description)")
	}
	return pass("skills", fmt.Sprintf("%d skill(s) parse", len(list)))
}

// checkStore runs SQLite's integrity check on a database that exists.
func checkStore(ctx context.Context, name, path string, always bool) finding {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if always {
			return pass(name, path+" does not exist yet (the first session creates it)")
		}
		return pass(name, "none here ("+path+")")
	}
	if err := integrityCheck(ctx, path); err != nil {
		return fail(name, err.Error(), "move "+path+" aside (hermes starts a new one) or restore it from a backup")
	}
	return pass(name, path+": integrity check ok")
}

// checkDisk reports the free space of the filesystem holding home (or
// its nearest existing parent).
func checkDisk(home string) finding {
	dir := home
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fail("disk", fmt.Sprintf("statfs %s: %v", dir, err), "check that "+dir+" is mounted")
	}
	free := st.Bavail * uint64(st.Bsize)
	detail := fmt.Sprintf("%s free on the filesystem of %s", humanBytes(free), dir)
	switch {
	case free < diskFailBytes:
		return fail("disk", detail, "free space there: sessions, logs and checkpoints are written to it")
	case free < diskWarnBytes:
		return warnf("disk", detail, "free space there: sessions, logs and checkpoints are written to it")
	}
	return pass("disk", detail)
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// checkPeers looks for the optional programs some tools use: a missing
// one is a warning.
func checkPeers(e *env, cfg *config.Config) []finding {
	look := func(names ...string) string {
		for _, n := range names {
			if n == "" {
				continue
			}
			if p, err := lookPath(e, n); err == nil {
				return p
			}
		}
		return ""
	}
	python := "python3"
	if cfg != nil && cfg.Code.Python != "" {
		python = cfg.Code.Python
	}
	var out []finding
	if p := look(python); p != "" {
		out = append(out, pass("python3", p+" (execute_code)"))
	} else {
		out = append(out, warnf("python3", python+" not found: the execute_code tool is not offered", "install Python 3, or set code.python in config.yaml"))
	}
	if p := look(e.getenv("CHROME_PATH"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"); p != "" {
		out = append(out, pass("chromium", p+" (browser tools)"))
	} else {
		out = append(out, warnf("chromium", "no chromium, chromium-browser or google-chrome on PATH, and CHROME_PATH unset: the browser tools need one",
			"install Chromium, or set CHROME_PATH to a Chrome or Chromium binary"))
	}
	if p := look("rg"); p != "" {
		out = append(out, pass("ripgrep", p))
	} else {
		out = append(out, warnf("ripgrep", "rg not found: commands the agent runs cannot search with it", "install ripgrep"))
	}
	return out
}

// lookPath finds a program on the PATH hermes was given (an absolute or
// relative path is checked as it is).
func lookPath(e *env, name string) (string, error) {
	if strings.ContainsRune(name, '/') {
		if fi, err := os.Stat(name); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return name, nil
		}
		return "", exec.ErrNotFound
	}
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
