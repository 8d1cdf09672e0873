package openai

import (
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/modelinfo"
)

// DefaultBaseURL is used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// OpenRouter asks apps to identify themselves with these headers; they
// attribute usage to the app on openrouter.ai.
const (
	openRouterReferer = "https://hermes-agent.nousresearch.com"
	openRouterTitle   = "Hermes Agent"
)

// flavor is the set of wire quirks a provider needs, derived once from
// Options so that each call does not re-parse the base URL.
type flavor struct {
	name string // provider name used in errors
	// official is OpenAI itself or Azure OpenAI: no reasoning echo, strict schema.
	official bool
	azure    bool
	// gateway is OpenRouter, Nous Portal or the Vercel AI gateway: they take a
	// unified `reasoning` object and replay `reasoning_details`.
	gateway    bool
	openRouter bool
	// echoReasoning sends an assistant's reasoning back as reasoning_content
	// (DeepSeek, Kimi, GLM, xAI style).
	echoReasoning bool
}

func newFlavor(o llm.Options) flavor {
	host := ""
	if u, err := url.Parse(o.BaseURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	p := strings.ToLower(o.Provider)
	f := flavor{name: p}
	switch {
	case p == "openrouter" || host == "openrouter.ai" || strings.HasSuffix(host, ".openrouter.ai"):
		f.openRouter, f.gateway = true, true
	case p == "nous" || strings.HasSuffix(host, "nousresearch.com"):
		f.gateway = true
	case p == "vercel" || p == "ai-gateway" || host == "ai-gateway.vercel.sh":
		f.gateway = true
	case p == "azure" || p == "azure-openai" || p == "azure-foundry" ||
		strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".services.ai.azure.com"):
		f.official, f.azure = true, true
	case p == "openai" || p == "openai-api" || p == "openai-codex" || host == "api.openai.com" ||
		(p == "" && o.BaseURL == ""):
		f.official = true
	case p == "groq" || host == "api.groq.com":
		// Groq rejects unknown message properties such as reasoning_content.
	default:
		f.echoReasoning = true
	}
	if f.name == "" {
		switch {
		case f.openRouter:
			f.name = "openrouter"
		case f.azure:
			f.name = "azure"
		case f.official:
			f.name = "openai"
		case host != "":
			f.name = host
		default:
			f.name = "openai-compatible"
		}
	}
	return f
}

// isReasoningModel reports whether model is an OpenAI reasoning model
// (GPT-5 family, o-series, codex): they take max_completion_tokens and
// reasoning effort, and return encrypted reasoning on the Responses API.
func isReasoningModel(model string) bool { return modelinfo.Lookup(model).Reasoning }
