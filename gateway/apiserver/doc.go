// Package apiserver is the OpenAI-compatible HTTP API of hermes (the
// gateway's api_server platform, and hermes serve): any OpenAI client
// drives a full agent, tools included.
//
// Endpoints: POST /v1/chat/completions (streamed with SSE and not; tool
// progress arrives as "hermes.tool.progress" events whose data has an
// empty choices list, so SDK iterators pass them by), POST /v1/responses
// (previous_response_id and named conversations; streamed or not),
// GET and DELETE /v1/responses/{id}, GET /v1/models, GET /health, the
// Runs API below, GET /v1/capabilities (feature flags, endpoints and
// limits), GET /health/detailed (runtime ready, store reachable,
// active runs, max_concurrent_runs; 503 when the store does not answer)
// and POST /webhooks/{name} (below; the capabilities say "webhooks":
// true when a route is configured).
// Errors have OpenAI's shape ({"error": {"message", "type", "param",
// "code"}}) and status codes.
//
// Runs: POST /v1/runs {"input", "session_id"?, "instructions"?} starts
// a turn in the background and answers 202 at once with the run object
// ({"id": "run_...", "object": "run", "status", "session_id", ...}).
// input is a string or Responses input items; session_id continues a
// stored session. An Idempotency-Key header makes a repeated request
// with the same body return the same run (Idempotent-Replayed: true);
// the key with another body is a 422. GET /v1/runs/{id} has the status
// (queued, running, completed, failed, cancelled), output, usage,
// timestamps and error. GET /v1/runs/{id}/events is an SSE stream of the
// run's events from its start, then live ones (each "id: <sequence>",
// "event: <type>", data with type, run_id, sequence_number, created_at):
// run.started, message.delta and reasoning.delta {delta}, tool.started
// and tool.completed {call_id, name, args_preview, duration_ms, error,
// result_preview, agent_id, depth}, subagent.start {subagent_id, goal}
// and subagent.complete {subagent_id, status, summary} for delegate_task,
// run.status {kind, text, restart: the text so far is void}, and a final
// run.completed, run.failed or run.cancelled, after which the stream
// ends. Every subscriber reads the same log; Last-Event-ID resumes after
// an event. A run is detached: a subscriber leaving does not stop it;
// POST /v1/runs/{id}/stop does (cancelled; 409 once it has ended). A run
// takes a max_concurrent_runs slot from start to end, like a completion.
// A finished run is remembered for Options.RunRetention (an hour) and
// among the last Options.MaxRetainedRuns (1,000), within 64 MB for all,
// then forgotten with its key; a run stores at most 256 KB of deltas,
// then drops them (events_truncated, dropped_events) and keeps the rest.
// The transcript itself is the stored session (hermes --resume).
// GET /v1/runs lists the remembered runs, newest first, in OpenAI's list
// shape ({"object": "list", "data", "has_more", "first_id", "last_id"});
// limit (default 20, at most 100) bounds a page and after=<run id>
// continues after that run.
//
// Approvals in a run: by default ("approvals": "deny") a run is
// unattended like every request (below). A run started with
// "approvals": "client" asks its client instead: a command the runtime's
// approver would ask the CLI's user about emits approval.requested
// {approval_id, command, description, findings [{key, description}],
// tool, call_id, choices [once, session, always, deny], expires_at}; the
// run's status reads requires_action and its required_action is
// {"type": "approval", "approvals": [...]} until it is answered with
// POST /v1/runs/{id}/approval {"approval_id", "choice"} (400 for a bad
// choice, 404 for an unknown run, 409 when that approval is not
// pending). approval.resolved {approval_id, choice, resolved_by: client,
// timeout or cancelled} follows. The answer means what it means in the
// CLI, through the same approver: once runs the command, session
// approves the pattern for the rest of the run, always adds it to
// command_allowlist, deny refuses it and the model reads so. No answer
// within approvals.timeout, the run stopping or the server shutting
// down denies it. The hardline list and the sandbox apply regardless;
// approvals.unattended_mode: allow runs commands without asking.
//
// Images: user messages may carry image parts, Chat Completions'
// {"type":"image_url","image_url":{"url":...}} and Responses'
// {"type":"input_image","image_url":...}. A data: URL must be a base64
// PNG, JPEG, GIF or WebP of at most 10 MB; an http(s) URL goes to the
// model as a URL (the server never fetches it); a request carries at
// most 20. The turn's user message carries its images, earlier messages
// keep theirs in the session they seed, and the store keeps them for
// later turns. A model without vision (model.vision, or its family) gets
// no images: the request is refused with a 400. Other part types
// (input_audio, file, input_file) are refused with a 400 naming the part.
//
// Webhooks: POST /webhooks/{name} serves the routes of
// Options.Webhooks. A delivery carries its route's signature instead of
// the key: the HMAC-SHA256 of the body with the route's secret, hex, as
// "X-Hub-Signature-256: sha256=<hex>" (GitHub) or "X-Hermes-Signature:
// sha256=<hex>", compared in constant time; missing or wrong, the answer
// is 401 and nothing runs. New refuses a route without a secret. A
// signed delivery starts an unattended run, answered 202 with the run
// object like POST /v1/runs (Location /v1/runs/{id}) and followed with
// the Runs API; the run object's "webhook" has route, delivery_id,
// event, injection_suspected (injection_patterns) and delivery {target,
// status: pending, delivered, failed or skipped, error}. A delivery id
// (X-GitHub-Delivery, X-Hermes-Delivery or X-Request-Id) runs once: it
// is claimed in Options.Deliveries (the gateway store's Seen, kept a
// week, so across restarts and processes) and mapped to its run in one
// of 1,024 slots per route; a replay runs nothing and gets 202 with the
// first run (Idempotent-Replayed: true, "duplicate": true). A delivery
// refused for load (429) is not claimed; one without an id runs each
// time. The signature covers the body only, as GitHub's does: the id
// and event headers are not signed. The model reads the route's
// prompt as configured, then, between <untrusted-webhook-data> tags
// introduced as text from an external sender that is never to be
// followed, the payload's fields the prompt names in braces
// ({repository.full_name}, {commits.0.message}, {__raw__}, {event_type})
// as JSON, or the whole payload when it names none; payload text never
// enters the instructions. A body that is not JSON is a 400 for a prompt
// naming fields, and quoted as text otherwise. The quoted text is
// scanned for prompt injection (untrusted.ScanContext): the model is
// warned and the run records the patterns; invisible characters are
// shown and the closing tag defused. Sessions of webhook runs have the
// source "webhook"; commands needing approval are denied (or run, with
// approvals.unattended_mode: allow). Events the route does not list
// (Events) and GitHub's ping get 200 and run nothing; an unknown route
// is a 404, another method a 405, a body over MaxWebhookBody (1 MiB) a
// 413. Once a run has completed, Options.Deliver sends its answer to the
// route's target before the run ends (delivery.completed or
// delivery.failed precedes run.completed); a failure is logged and
// recorded on the run, whose answer stays.
//
// Auth fails closed: every request, from loopback too, needs
// "Authorization: Bearer <key>" (compared in constant time), except the
// webhooks, which carry their signature. New refuses a server with
// neither a key nor webhooks; one with webhooks and no key serves them
// and /health, and answers anything else 401 saying how to set the key.
// CORS is off unless origins are listed.
//
// Conversations live in the session store, never in memory: a request
// opens a conversation over the runtime's shared parts
// (app.Runtime.Open), which resumes the session from SQLite, runs one
// turn and closes it, so nothing of a transcript outlives its request. Chat Completions is stateless on the wire: the
// client's earlier messages seed a new stored session, or the
// X-Hermes-Session-Id header continues a stored one (the response names
// the session in the same header). Responses continue the session of a
// previous response (branching when it is not the latest) or of a named
// conversation. Before a turn, a conversation holding more than 85% of
// the context window is compressed (compress.GatewayThreshold).
//
// Nobody attends the server: a command that needs approval is denied
// and the model reads why (approvals.unattended_mode: deny), or runs
// when the mode is allow; hardline commands are refused and the sandbox
// applies either way.
//
// Bounds: at most MaxConcurrentRuns turns run at once; a request over
// it waits up to QueueTimeout, then gets 429 with Retry-After. A client
// that disconnects interrupts its turn. Two requests on one conversation
// at once: the second gets 409. Once no turn has run for a few seconds,
// the server calls Options.OnIdle (hermes serve closes idle connections
// to the model there and shrinks the store's caches) and returns freed
// memory to the system, so a burst does not stay resident.
//
// Concurrency: a Server is safe for concurrent use; each request runs
// on its own goroutine and shares only the runtime.
package apiserver
