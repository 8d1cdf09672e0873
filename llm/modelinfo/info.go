package modelinfo

import (
	"path"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultContextWindow is the window assumed for a model the table does
// not know.
const DefaultContextWindow = 128_000

// Info is what the table says about one model.
type Info struct {
	// Vision: the model accepts images.
	Vision bool
	// ContextWindow is the built-in context window in tokens.
	ContextWindow int
	// Reasoning: an OpenAI reasoning model (o-series, GPT-5 family,
	// codex). It takes max_completion_tokens and a reasoning effort
	// instead of a temperature, and returns encrypted reasoning on the
	// Responses API.
	Reasoning bool
	// PromptCaching: a Claude model, which honours cache_control markers
	// on any transport that passes them on.
	PromptCaching bool
	// ResponsesAPI: on api.openai.com the model needs the Responses API
	// to reason while calling tools (GPT-5 family, codex).
	ResponsesAPI bool
	// ToolUseGuidance: the family, without an explicit rule, often
	// describes actions instead of calling tools; the system prompt gets
	// one.
	ToolUseGuidance bool
	Quirks          Quirk
}

// Has reports whether the model has quirk q.
func (i Info) Has(q Quirk) bool { return i.Quirks&q != 0 }

// Quirk is a set of departures from a wire format's norm that a transport
// works around.
type Quirk uint

const (
	// EmptyReasoningOnToolCalls: with thinking on, the API rejects an
	// earlier assistant turn with tool calls that carries no
	// reasoning_content, even an empty one (Kimi).
	EmptyReasoningOnToolCalls Quirk = 1 << iota
	// AdaptiveThinking: extended thinking is {"type":"adaptive"} plus an
	// output effort; a thinking budget is deprecated (Claude Opus 4.6,
	// Mythos).
	AdaptiveThinking
)

// Lookup returns what the table knows about model, by name
// ("anthropic/claude-sonnet-4.5", "gpt-4o-mini", "qwen3:32b").
func Lookup(model string) Info {
	if v, ok := lookups.Load(model); ok {
		return v.(Info)
	}
	info := lookup(model)
	if lookupCount.Add(1) <= maxLookups {
		lookups.Store(model, info)
	}
	return info
}

// Lookups are remembered: a transport asks for every request and every
// message, and matching the table's globs costs more than the request's
// encoding. The names a process sees are few (its configured models); a
// bound keeps arbitrary names from growing the cache.
var (
	lookups     sync.Map // model name -> Info
	lookupCount atomic.Int64
)

const maxLookups = 1024

func lookup(model string) Info {
	name := Normalize(model)
	info := Info{ContextWindow: DefaultContextWindow}
	if name == "" {
		return info
	}
	window, vision, textOnly := 0, false, false
	rows := table.Get()
	for i := range rows {
		f := &rows[i]
		if !f.matches(name) {
			continue
		}
		if window == 0 && f.window > 0 {
			window = f.window
		}
		vision = vision || f.vision
		textOnly = textOnly || f.textOnly
		info.Reasoning = info.Reasoning || f.reasoning
		info.PromptCaching = info.PromptCaching || f.caching
		info.ResponsesAPI = info.ResponsesAPI || f.responses
		info.ToolUseGuidance = info.ToolUseGuidance || f.toolUse
		info.Quirks |= f.quirks
	}
	if window > 0 {
		info.ContextWindow = window
	}
	info.Vision = vision && !textOnly
	return info
}

// Normalize is the form of a model name the table matches: lower case,
// without surrounding space or a vendor prefix ("openai/gpt-5" -> "gpt-5",
// "hf.co/org/Qwen3" -> "qwen3").
func Normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

func (f *family) matches(name string) bool {
	for _, g := range f.match {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}
