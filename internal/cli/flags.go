package cli

import (
	"github.com/hermes-go/hermes/llm"
	"strings"

	"github.com/spf13/pflag"
)

// runFlags are the flags every run shares. Flags win over config.yaml,
// which wins over the environment.
type runFlags struct {
	prompt      string
	provider    string
	baseURL     string
	apiKey      string
	model       string
	apiMode     string
	maxTurns    int
	toolsets    string
	yolo        bool
	sandbox     string
	backend     string
	usageFile   string
	ignoreRules bool
	effort      string
	noStream    bool
	images      []string
	attach      []llm.Image // the loaded --image files of an interactive chat
	skills      []string

	// chat
	query   string
	oneshot bool
	resume  string
	cont    bool
	quiet   bool
	verbose bool
}

// addProviderFlags adds the flags that choose the model endpoint: every
// command that calls a model has them.
func addProviderFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.StringVar(&f.provider, "provider", "", "provider: auto, openrouter, openai, anthropic, openai-codex, custom (ollama, vllm, llamacpp, lmstudio)")
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of the model endpoint (e.g. http://127.0.0.1:8080/v1)")
	fs.StringVar(&f.apiKey, "api-key", "", "API key (prefer the provider's environment variable)")
	fs.StringVarP(&f.model, "model", "m", "", "model name")
	fs.StringVar(&f.apiMode, "api-mode", "", "wire format: chat_completions, codex_responses or anthropic_messages")
	fs.BoolVar(&f.noStream, "no-stream", false, "make model calls without streaming")
}

// addRunFlags adds the flags of the commands that run turns: hermes
// itself (-z, chat) and hermes chat. They are local to those commands,
// so the help of others (sessions, approvals) does not list them.
func addRunFlags(fs *pflag.FlagSet, f *runFlags) {
	addProviderFlags(fs, f)
	fs.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget per turn (default agent.max_turns, 500)")
	fs.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to enable (default: all)")
	fs.BoolVar(&f.yolo, "yolo", false, "run dangerous commands without asking (hardline commands are still refused; the sandbox stays)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access (no sandbox)")
	fs.StringVar(&f.backend, "backend", "", "where commands run and files live: local (default), ssh (terminal.ssh in config.yaml) or docker")
	fs.StringVar(&f.usageFile, "usage-file", "", "write a JSON summary of the run (calls, outcome, tokens) to this file")
	fs.BoolVar(&f.ignoreRules, "ignore-rules", false, "skip context files (AGENTS.md, .hermes.md) and memory")
	fs.StringVar(&f.effort, "reasoning-effort", "", "reasoning effort: none, low, medium, high")
	fs.StringVarP(&f.resume, "resume", "r", "", "resume a session: ID, title or 'latest'")
	fs.BoolVarP(&f.cont, "continue", "c", false, "continue the latest session")
	fs.StringArrayVar(&f.images, "image", nil, "attach an image (file path or http(s) URL) to the prompt; repeatable")
	fs.StringSliceVarP(&f.skills, "skills", "s", nil, "preload a skill into the session (repeatable, or comma-separated)")
}

func (f *runFlags) toolsetList() []string {
	if strings.TrimSpace(f.toolsets) == "" {
		return nil
	}
	var out []string
	for _, s := range strings.Split(f.toolsets, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
