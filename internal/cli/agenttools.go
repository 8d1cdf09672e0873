package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/sessionsearch"
	"github.com/hermes-go/hermes/tools/todo"
)

// agentState is what the agent-level tools share with the loop: the
// memory files, the task list.
type agentState struct {
	mem   *memory.Store
	todos *todo.Store
}

// wireAgentTools adds memory, todo, session_search and clarify to the
// agent, the system prompt builder, and the end-of-turn memory sync.
func (rt *runtime) wireAgentTools(ctx context.Context, acfg *agent.Config, f *runFlags, bo buildOptions) error {
	st := &agentState{todos: &todo.Store{}}
	warn := func(s string) { rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: s}) }

	if !f.ignoreRules && rt.toolsetEnabled("memory") {
		m, err := memory.Open(memory.Options{Dir: memory.Dir(rt.home)})
		if err != nil {
			// The files are kept as they are; the session runs without memory.
			fmt.Fprintf(rt.stderr, "hermes: warning: memory disabled for this session: %v\n", err)
		} else {
			st.mem = m
			acfg.AgentTools = append(acfg.AgentTools, memory.NewTool(m))
			rt.memorySync = func(context.Context) error {
				_, err := m.Sync()
				return err
			}
		}
	}
	if raw, err := rt.store.Todo(ctx, acfg.Session.ID); err == nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, st.todos); err != nil {
			warn(fmt.Sprintf("stored task list unreadable, starting empty: %v", err))
		}
	}
	if rt.toolsetEnabled("todo") {
		acfg.AgentTools = append(acfg.AgentTools, todo.NewTool(st.todos, func(ctx context.Context, id string, b json.RawMessage) error {
			return rt.store.SetTodo(ctx, id, b)
		}))
	}
	rt.todos = func() []compress.Todo {
		var out []compress.Todo
		for _, it := range st.todos.Get().Todos {
			out = append(out, compress.Todo{ID: it.ID, Content: it.Content, Status: string(it.Status), Parent: it.Parent})
		}
		return out
	}
	if rt.toolsetEnabled("session_search") {
		acfg.AgentTools = append(acfg.AgentTools, sessionsearch.New(rt.store))
	}
	if rt.toolsetEnabled("clarify") {
		var ask clarify.Ask
		if bo.interactive && rt.lines != nil {
			ask = rt.askClarify
		}
		acfg.AgentTools = append(acfg.AgentTools, clarify.New(ask))
	}

	wd, _ := os.Getwd()
	acfg.SystemPrompt = func(ctx context.Context, model, prov string) (string, error) {
		b := prompt.Builder{
			Home: rt.home, Workdir: wd, Model: model, Provider: prov, Platform: "cli",
			Now: time.Now, IgnoreRules: f.ignoreRules, Extra: rt.cfg.Agent.SystemPrompt,
		}
		if st.mem != nil {
			snap := st.mem.Snapshot()
			b.MemorySnapshot, b.UserSnapshot = snap.Memory, snap.User
		}
		for _, t := range acfg.AgentTools {
			b.ToolNames = append(b.ToolNames, t.Spec().Name)
		}
		b.ToolNames = append(b.ToolNames, acfg.Tools.Names()...)
		p, notes := b.Build()
		for _, n := range notes {
			warn("system prompt: " + n)
		}
		return p, nil
	}
	acfg.RewritePrompt = prompt.ReplaceIdentityLines
	acfg.OnTurnEnd = func(ctx context.Context, res *agent.Result) error {
		if st.mem == nil {
			return nil
		}
		defer st.mem.StartTurn()
		_, err := st.mem.Sync()
		return err
	}
	acfg.OnCompressed = func(ctx context.Context, history []llm.Message, sessionID string) error {
		var errs []string
		if st.mem != nil {
			// The continuation's prompt is rebuilt with what memory holds now.
			if err := st.mem.Load(); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if b, err := json.Marshal(st.todos); err == nil && sessionID != "" {
			if err := rt.store.SetTodo(ctx, sessionID, b); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return nil
	}
	return nil
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
