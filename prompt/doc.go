// Package prompt builds the system prompt of a session, once, at its start.
//
// Layers, joined with a blank line, in this order:
//
//  1. identity: $HERMES_HOME/SOUL.md, or the built-in Hermes identity;
//  2. guidance for the tools present (memory, session_search, todo) and,
//     for model families that tend to describe actions instead of taking
//     them, a tool-use rule;
//  3. extra system text from configuration (agent.system_prompt);
//  4. the frozen MEMORY snapshot and 5. the USER profile snapshot
//     (rendered by package memory);
//  6. a skills index, when given;
//  7. context files: the global $HERMES_HOME/AGENTS.md, then AGENTS.md
//     and .hermes.md (or HERMES.md) in the working directory and each
//     parent up to the repository root (the directory holding .git; the
//     filesystem root when there is none), outermost first;
//  8. the platform hint (CLI, editor, messaging);
//  9. the closing lines: "Conversation started: <date>", the session id
//     when given, "Model: <model>", "Provider: <provider>".
//
// Every file that enters the prompt is capped at 20,000 characters (the
// first 70% and last 20% kept, with a marker) and scanned for prompt
// injection (both by package prompt/untrusted, which memory, skills and
// mcp use too); suspicious text is not dropped but fenced as untrusted data
// behind a warning, with invisible characters made visible. Failures to
// read a file never stop the build: they are returned as notes.
//
// The output is a pure function of the Builder's fields and the files it
// reads: the same inputs give the same bytes (the date has no time of day),
// so a provider's prompt cache stays valid for the whole session and a
// resumed session can reuse its stored prompt (see IdentityMatches).
//
// Concurrency: a Builder is a value; Build may run concurrently.
package prompt
