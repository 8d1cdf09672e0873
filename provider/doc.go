// Package provider decides which model endpoint a call goes to and keeps
// the call alive when that endpoint fails.
//
// Resolution turns configuration (model.*, providers.<id>, the key
// variables) into an Endpoint: provider, model, base URL, API key and the
// API mode (wire format), chosen in upstream Hermes' order: an explicit
// api_mode, then the provider, then the base URL's hostname, then
// chat_completions; a model the model table (llm/modelinfo) marks as
// needing the Responses API (GPT-5 family, codex) is upgraded to it on
// api.openai.com.
//
// Discovery (Resolver.Discover) is the one step that asks servers, and it
// runs once, before resolution: with provider "auto" and no key anywhere,
// it probes the usual ports of Ollama, LM Studio, llama.cpp and vLLM on
// 127.0.0.1 (in parallel, half a second at most) and points the
// configuration at the first that answers with a model, for a newcomer
// who has a local server but no key; for a local provider with no model,
// it takes the server's first. Resolution itself never touches the
// network.
//
// A Chain is the one retry layer of the runtime (transport SDK retries are
// off). It implements llm.Client over an ordered list of endpoints, the
// primary first and then fallback_providers: a retryable failure is
// retried with jittered exponential backoff (the provider's wait honoured:
// Retry-After, or for a rate limit the X-RateLimit-Reset* headers read on
// the chain's clock; capped at 600 s); a reply cut short (no finish, no
// terminator) is retried like a dropped connection; rate limits, invalid
// responses, repeated transport failures, exhausted retries and
// non-retryable errors other than a context overflow switch to the next
// endpoint in the same call; 401/403 first re-reads the credentials
// (key_cmd, key variable) once. A fallback endpoint gets the request with
// its system prompt passed through ChainOptions.RewriteSystem (the caller's
// hook: the package knows nothing of prompts). Fallback is turn-scoped:
// ResetTurn returns to the primary. A context overflow is never retried nor handled by
// fallback: it goes back to the caller, who compresses.
//
// Key pools (Pool, the pool file HERMES_HOME/auth.json that hermes auth
// writes) give one provider several keys: the environment's or .env's key
// first, then the file's. An endpoint whose key belongs to its provider's
// pool carries the pool, and the Chain rotates within it before anything
// else: a 429 cools the key down until its reset time (Retry-After or the
// X-RateLimit-Reset* headers, on the chain's clock; DefaultCooldown when
// the provider gives none) and the call moves to the next usable key at
// once, spending no retry; a 401/403 or an exhausted quota marks the key
// refused, skipped from then on. A cooled key is usable again once its
// reset time has passed, without anyone saying so. Only when every key of
// the pool is out does the call go on as without a pool: to the next
// endpoint of the chain, or a wait. States are written back to the pool
// file, so the next run skips a key still resting.
//
// Auxiliary tasks (compression, session_search, title_generation, vision,
// web_extract) get their own Chain from auxiliary.<task>, with "main"
// meaning the primary model.
//
// The context window (ContextWindow, ContextCache) lives here too,
// because it belongs to the endpoint: the configured value, else the model
// table's, lowered to what the endpoint reported; token estimates are
// llm.EstimateTokens.
//
// Concurrency: Endpoint, Config and the resolution functions are plain
// values and pure apart from running key commands (and Discover, which
// asks servers over HTTP). A Chain is safe for
// concurrent use; its callbacks run on the calling goroutine of Complete,
// and concurrent calls share the active endpoint (a switch made by one is
// seen by the next). A ContextCache is safe for concurrent use.
package provider
