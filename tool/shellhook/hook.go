package shellhook

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// DefaultTimeout bounds one hook run when its entry gives none.
const DefaultTimeout = 30 * time.Second

// Event names, as they appear in config.yaml and in the payload.
const (
	PreToolCall  = "pre_tool_call"
	PostToolCall = "post_tool_call"
)

// Hook is one configured hook command.
type Hook struct {
	// Matcher is a regular expression matched against the whole tool
	// name; empty matches every tool.
	Matcher string
	// Command is run with `sh -c`.
	Command string
	// Timeout bounds one run; 0 means DefaultTimeout.
	Timeout time.Duration
	// FailOpen lets the call go on (with a warning) when a pre_tool_call
	// hook fails for another reason than exit status 2 or an explicit
	// block. The default blocks.
	FailOpen bool
}

// Options are shared by every hook built from one configuration.
type Options struct {
	// Shell runs the commands (default "sh").
	Shell string
	// Dir is the hooks' working directory (default: the process's).
	Dir string
	// Env is added to the process environment.
	Env []string
	// OnWarning receives problems that do not block a call (a failing
	// post hook, unreadable output). Nil logs them with slog.
	OnWarning func(msg string)
	// After starts the timeout timer (default time.After semantics with
	// a stoppable timer). Tests inject a channel they fire themselves.
	After func(d time.Duration) <-chan time.Time
}

func (o Options) shell() string {
	if o.Shell == "" {
		return "sh"
	}
	return o.Shell
}

func (o Options) warn(msg string) {
	if o.OnWarning != nil {
		o.OnWarning(msg)
		return
	}
	slog.Warn(msg)
}

// hook is a Hook ready to run.
type hook struct {
	Hook
	event string
	match *regexp.Regexp // nil matches everything
	opts  Options
}

func compile(event string, hooks []Hook, opts Options) ([]*hook, error) {
	out := make([]*hook, 0, len(hooks))
	for i, h := range hooks {
		if h.Command == "" {
			return nil, fmt.Errorf("hooks.%s[%d]: command is empty", event, i)
		}
		c := &hook{Hook: h, event: event, opts: opts}
		if c.Timeout <= 0 {
			c.Timeout = DefaultTimeout
		}
		if h.Matcher != "" {
			re, err := regexp.Compile(`^(?:` + h.Matcher + `)$`)
			if err != nil {
				return nil, fmt.Errorf("hooks.%s[%d]: matcher %q: %w", event, i, h.Matcher, err)
			}
			c.match = re
		}
		out = append(out, c)
	}
	return out, nil
}

func (h *hook) matches(toolName string) bool {
	return h.match == nil || h.match.MatchString(toolName)
}

// Pre returns one tool.PreHook per hook, in order. A matcher that does not
// compile or an empty command is an error.
func Pre(hooks []Hook, opts Options) ([]tool.PreHook, error) {
	cs, err := compile(PreToolCall, hooks, opts)
	if err != nil {
		return nil, err
	}
	out := make([]tool.PreHook, len(cs))
	for i, c := range cs {
		out[i] = c.pre
	}
	return out, nil
}

// Post returns one tool.PostHook per hook, in order.
func Post(hooks []Hook, opts Options) ([]tool.PostHook, error) {
	cs, err := compile(PostToolCall, hooks, opts)
	if err != nil {
		return nil, err
	}
	out := make([]tool.PostHook, len(cs))
	for i, c := range cs {
		out[i] = c.post
	}
	return out, nil
}

// Build builds the pre_tool_call and post_tool_call hooks of one
// configuration (config.yaml's hooks section, converted by the runtime).
func Build(preHooks, postHooks []Hook, opts Options) ([]tool.PreHook, []tool.PostHook, error) {
	pre, err := Pre(preHooks, opts)
	if err != nil {
		return nil, nil, err
	}
	post, err := Post(postHooks, opts)
	if err != nil {
		return nil, nil, err
	}
	return pre, post, nil
}

// pre runs a pre_tool_call hook for call.
func (h *hook) pre(ctx context.Context, call *tool.Call) (string, error) {
	if !h.matches(call.Name) {
		return "", nil
	}
	out := h.run(ctx, payloadFor(h.event, *call, h.opts.Dir))
	return h.decidePre(out, call), nil
}

// post runs a post_tool_call hook for a finished call.
func (h *hook) post(ctx context.Context, call tool.Call, res *tool.Result, st tool.Status, d time.Duration) {
	if !h.matches(call.Name) {
		return
	}
	p := payloadFor(h.event, call, h.opts.Dir)
	p.Result, p.IsError, p.Status, p.DurationMS = &res.Content, &res.IsError, string(st), d.Milliseconds()
	// An interrupt must stop the turn promptly: post hooks do not start
	// once the turn's context is done, and a running one is killed.
	if ctx.Err() != nil {
		return
	}
	out := h.run(ctx, p)
	h.applyPost(out, call, res)
}
