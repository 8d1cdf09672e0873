package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/logfile"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool/approval"
)

// runtime is one hermes run: the assembled runtime, the conversation it
// opened first, and the terminal it talks to.
type runtime struct {
	*app.Runtime
	// conv is the conversation the run opened; a chat may move to others
	// (/new, /resume), which it opens with open.
	conv *app.Conversation
	// own is what every conversation of the run gets: the approval and
	// clarify callbacks, the preloaded skills, the rules left out.
	own   app.ConversationOptions
	lines *lineReader // set when a person can answer prompts
	log   *logfile.Log
}

// Close closes the runtime, then the log.
func (rt *runtime) Close() error {
	err := rt.Runtime.Close()
	rt.log.Close()
	return err
}

// buildOptions are what differs between commands.
type buildOptions struct {
	interactive bool // a user can answer approvals and clarify questions
	source      string
	// approve and clarify ask the user through something else than the
	// lines of stdin (the terminal UI).
	approve func(context.Context, approval.Prompt) (approval.Choice, error)
	clarify func(ctx context.Context, question string, choices []string) (string, error)
	// quiet keeps warnings found while building off stderr (the caller
	// shows Runtime.Warnings).
	quiet bool
	// observer receives the conversation's events.
	observer agent.Observer
}

// loadConfig reads HERMES_HOME's .env and config.yaml and applies flags.
func loadConfig(e *env, f *runFlags) (*config.Config, error) {
	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		e.warn(w)
	}
	if f.provider != "" {
		cfg.Provider = f.provider
	}
	if f.baseURL != "" {
		cfg.BaseURL = f.baseURL
	}
	if f.apiKey != "" {
		cfg.APIKey = f.apiKey
	}
	if f.model != "" {
		cfg.Model.Name = f.model
	}
	if f.apiMode != "" {
		cfg.APIMode = f.apiMode
	}
	switch {
	case f.maxTurns < 0:
		return nil, &app.ConfigError{Err: fmt.Errorf("--max-turns: %d is not allowed (a whole number, at least 1)", f.maxTurns)}
	case f.maxTurns > 0:
		cfg.Agent.MaxTurns = f.maxTurns
	}
	if f.effort != "" {
		cfg.Agent.ReasoningEffort = f.effort
	}
	if l := f.toolsetList(); l != nil {
		cfg.Toolsets = l
	}
	if f.sandbox != "" {
		if _, err := sandbox.ParseMode(f.sandbox); err != nil {
			return nil, &app.ConfigError{Err: fmt.Errorf("--sandbox: %w", err)}
		}
		cfg.Sandbox.Mode = f.sandbox
	}
	if f.backend != "" {
		if err := app.UseBackend(cfg, f.backend); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// build assembles the runtime from flags, config.yaml and the environment,
// and opens the run's conversation: a new session, or the one --resume
// or --continue names.
func build(ctx context.Context, e *env, f *runFlags, bo buildOptions) (*runtime, error) {
	cfg, err := loadConfig(e, f)
	if err != nil {
		return nil, err
	}
	rt := &runtime{}
	var logErr error
	rt.log, logErr = tryOpenLog(e, cfg, bo.source, nil)
	if bo.interactive && bo.approve == nil {
		rt.lines = newLineReader(e.stdin, e.stderr)
	}
	resume := f.resume
	if f.cont && resume == "" {
		resume = "latest"
	}
	opts := app.Options{
		Source:    bo.source,
		NoStream:  f.noStream,
		Getenv:    e.getenv,
		OnWarning: func(s string) { e.warn(s) },
		Logger:    rt.log.File,
	}
	// --toolsets names what this run's conversations get (the browser,
	// execute_code in a one-shot run), besides narrowing the runtime's.
	rt.own = app.ConversationOptions{IgnoreRules: f.ignoreRules, Skills: f.skills, Toolsets: f.toolsetList()}
	if bo.interactive {
		// Someone is at the terminal: the agent may schedule jobs, whose
		// answers it keeps in their output files unless told otherwise.
		rt.own.Origin = "local"
	}
	if rt.lines != nil {
		rt.own.Approve, rt.own.Clarify = rt.askApproval, rt.askClarify
	}
	if bo.approve != nil {
		rt.own.Approve, rt.own.Clarify = bo.approve, bo.clarify
	}
	if bo.quiet {
		opts.OnWarning = nil
	}
	rt.Runtime, err = app.New(ctx, cfg, opts)
	if err != nil {
		rt.log.Error("start failed", "err", err)
		rt.log.Close()
		return nil, err
	}
	if logErr != nil {
		e.warn(logErr)
	}
	rt.conv, err = rt.open(ctx, app.ConversationOptions{Resume: resume, Yolo: f.yolo, Observer: bo.observer})
	if err != nil {
		rt.Close()
		return nil, err
	}
	if found := rt.LocalServer(); found != nil {
		fmt.Fprintln(e.stderr, "hermes:", found)
	}
	if bo.interactive {
		rt.conv.AttachImages(f.attach...)
	}
	return rt, nil
}

// open opens a conversation of this run: o with the run's approval and
// clarify callbacks, preloaded skills and rules. A chat's /new and
// /resume open theirs here too.
func (rt *runtime) open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
	o.Approve, o.Clarify = rt.own.Approve, rt.own.Clarify
	o.Skills, o.IgnoreRules, o.Origin = rt.own.Skills, rt.own.IgnoreRules, rt.own.Origin
	if o.Toolsets == nil {
		o.Toolsets = rt.own.Toolsets
	}
	return rt.Open(ctx, o)
}

// endSession records that this process is done with c's session. A
// failure is reported, not fatal: the answer is already out.
func endSession(stderr io.Writer, c *app.Conversation, reason string) {
	if err := c.End(reason); err != nil {
		fmt.Fprintln(stderr, "hermes: warning:", err)
	}
}

// exitFor maps a setup error or a result to an exit status.
func exitFor(err error) int {
	var ce *app.ConfigError
	if errors.As(err, &ce) {
		return exitUsage
	}
	return exitFailed
}

// openStore opens HERMES_HOME/state.db for the sessions commands. Its
// errors name the file; one that cannot be written is a setup error
// (status 2), as in app.New.
func openStore(home string, redact func(string) string) (*session.Store, error) {
	st, err := session.Open(filepath.Join(home, "state.db"), session.Options{Redact: redact})
	if errors.Is(err, session.ErrReadOnly) {
		return nil, &exitError{code: exitUsage, err: err}
	}
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	return st, nil
}

// askApproval prompts on stderr and reads the answer from stdin. No
// answer, or anything but o/s/a, is a deny.
func (rt *runtime) askApproval(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	w := rt.lines.prompt
	title := "DANGEROUS COMMAND"
	if p.Tool == "network" {
		title = "NETWORK ACCESS"
	}
	fmt.Fprintf(w, "\n⚠️  %s: %s\n    %s\n[o]nce | [s]ession | [a]lways | [d]eny\nChoice [o/s/a/D]: ", title, p.Description(), p.Command)
	line, err := rt.lines.read(ctx)
	if err != nil {
		return approval.Deny, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once", "y", "yes":
		return approval.Once, nil
	case "s", "session":
		return approval.Session, nil
	case "a", "always":
		rt.sayAlways(p)
		return approval.Always, nil
	}
	return approval.Deny, nil
}

// sayAlways tells the user what an "always" answer allows from now on:
// every command of the kinds found, not only this one, in every session.
func (rt *runtime) sayAlways(p approval.Prompt) {
	w := rt.lines.prompt
	if p.Tool == "network" {
		fmt.Fprintf(w, "From now on, in every session, commands may %s: saved to sandbox.network.allow in %s\n",
			p.Command, filepath.Join(rt.Config().Home, "config.yaml"))
		return
	}
	fmt.Fprintln(w, "From now on, in every session, any command matching these patterns runs without asking, not only this one:")
	undo := make([]string, len(p.Findings))
	for i, f := range p.Findings {
		fmt.Fprintf(w, "    %s: %s\n", f.Key, f.Description)
		undo[i] = "hermes approvals revoke " + f.Key
	}
	fmt.Fprintf(w, "  Saved to command_allowlist in %s; undo with: %s\n",
		filepath.Join(rt.Config().Home, "config.yaml"), strings.Join(undo, "; "))
}

// askClarify asks the user a question on the terminal.
func (rt *runtime) askClarify(ctx context.Context, q string, choices []string) (string, error) {
	w := rt.lines.prompt
	fmt.Fprintf(w, "\n? %s\n", q)
	for i, c := range choices {
		fmt.Fprintf(w, "  %d) %s\n", i+1, c)
	}
	fmt.Fprint(w, "answer> ")
	line, err := rt.lines.read(ctx)
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	var n int
	if _, err := fmt.Sscanf(line, "%d", &n); err == nil && n >= 1 && n <= len(choices) && fmt.Sprint(n) == line {
		return choices[n-1], nil
	}
	return line, nil
}
