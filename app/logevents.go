package app

import (
	"context"
	"log/slog"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/redact"
)

// logArgsMax caps a tool call's arguments in the log: enough to tell
// which command ran, not a file's whole content.
const logArgsMax = 500

// newLog is the runtime's logger: Options.Logger with the runtime's
// redactor in front, which also knows the secrets of the workspaces
// opened since.
func (rt *Runtime) newLog() *slog.Logger {
	if rt.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	if rt.redact == nil {
		return rt.opts.Logger
	}
	return slog.New(redact.NewHandlerFunc(rt.opts.Logger.Handler(), rt.redact))
}

// logEvents logs what a conversation does: its turns' tool calls,
// warnings, model switches, retries and outcomes, each with the session
// id (the current one: compression moves a conversation to a new
// session).
func (c *Conversation) logEvents(e agent.Event) {
	log := c.rt.log
	if log == nil || c.agent == nil {
		return
	}
	attrs := []any{"session", c.agent.SessionID()}
	if e.AgentID != "" {
		attrs = append(attrs, "agent", e.AgentID)
	}
	switch e.Kind {
	case agent.EventToolStarted:
		args := e.Tool.Args
		if len(args) > logArgsMax {
			args = args[:logArgsMax] + "…"
		}
		log.Info("tool call", append(attrs, "tool", e.Tool.Name, "args", args)...)
	case agent.EventToolFinished:
		level := slog.LevelDebug
		if e.Tool.IsError {
			level = slog.LevelWarn
		}
		log.Log(context.Background(), level, "tool done", append(attrs, "tool", e.Tool.Name, "status", string(e.Tool.Status),
			"error", e.Tool.IsError, "ms", e.Tool.Duration.Milliseconds())...)
	case agent.EventWarning:
		log.Warn(e.Text, attrs...)
	case agent.EventRetry:
		log.Warn("model call retried", append(attrs, "detail", e.Text)...)
	case agent.EventFallback:
		log.Warn("fell back to another model", append(attrs, "detail", e.Text)...)
	case agent.EventCompression:
		log.Info("context compressed", append(attrs, "detail", e.Text)...)
	case agent.EventDone:
		r := e.Result
		if r == nil {
			return
		}
		attrs = append(attrs, "model", r.Model, "provider", r.Provider, "exit_reason", string(r.ExitReason),
			"api_calls", r.APICalls, "input_tokens", r.Usage.InputTokens, "output_tokens", r.Usage.OutputTokens,
			"cache_read_tokens", r.Usage.CacheReadTokens, "cache_write_tokens", r.Usage.CacheWriteTokens)
		if r.Error != nil {
			log.Error("turn failed", append(attrs, "error", r.Error)...)
			return
		}
		log.Info("turn done", attrs...)
	}
}

// logOpened logs a conversation's start: its session, where it came
// from, and the model it talks to.
func (c *Conversation) logOpened() {
	s := c.agent.Session()
	model, prov := c.Model()
	c.rt.log.Info("conversation opened", "session", s.ID, "source", s.Source, "model", model, "provider", prov)
}
