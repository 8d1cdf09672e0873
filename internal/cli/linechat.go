package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
)

// runLineChat is the line mode: each line is a turn, a slash command or a
// `!cmd`; Ctrl-C interrupts a running turn, and at the prompt ends the
// chat.
func runLineChat(ctx context.Context, e *env, f *runFlags, commands *slash.Registry) error {
	prog := &progress{w: e.stderr, showText: true, verbose: f.verbose}
	rt, err := build(ctx, e, f, buildOptions{interactive: true, source: "cli", observer: prog.observe})
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	h := &lineHost{rt: rt, observe: prog.observe, w: e.stderr}
	h.conv.Store(rt.conv)
	defer func() { endSession(e.stderr, h.Conversation(), "user_exit") }() // the one /new or /resume left it on
	c := rt.conv
	status, _ := statusLine(c.Backend(), c.SandboxStatus())
	fmt.Fprintf(e.stderr, "hermes %s · %s · session %s · /help for commands · Ctrl-D to quit\n%s\n", Version, c.Endpoint(), c.SessionID(), status)
	for _, w := range slash.RegisterSkills(commands, rt.Runtime) {
		e.warn(w)
	}
	if hist := c.History(); len(hist) > 0 {
		h.Reset(hist)
	}
	// during runs f with Ctrl-C interrupting the agent.
	during := func(f func()) {
		done := make(chan struct{})
		go func() {
			select {
			case <-sigs:
				h.Conversation().Interrupt()
			case <-done:
			}
		}()
		f()
		close(done)
	}
	for !h.exit {
		fmt.Fprint(e.stderr, "\n> ")
		// Ctrl-C at the prompt ends the chat; during a turn it interrupts it.
		promptCtx, cancelPrompt := context.WithCancel(ctx)
		go func() {
			select {
			case <-sigs:
				cancelPrompt()
			case <-promptCtx.Done():
			}
		}()
		raw, err := rt.lines.read(promptCtx)
		cancelPrompt()
		if err != nil {
			fmt.Fprintln(e.stderr)
			if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "!"); ok && strings.TrimSpace(cmd) != "" {
			during(func() { h.shell(ctx, strings.TrimSpace(cmd)) })
			continue
		}
		var handled bool
		during(func() { handled, err = commands.Dispatch(ctx, h, line) })
		if handled {
			if err != nil {
				fmt.Fprintln(e.stderr, "hermes:", err)
			}
			line, h.pending = h.pending, ""
			if line == "" {
				continue
			}
		}
		during(func() { h.turn(ctx, prog, line) })
	}
	return nil
}

// lineHost is the line mode's side of the slash commands: text goes to
// stderr, a turn a command asks for runs when it returns.
type lineHost struct {
	rt *runtime
	// conv is the conversation the chat is on; /new and /resume swap it
	// while Ctrl-C may read it.
	conv    atomic.Pointer[app.Conversation]
	observe agent.Observer
	w       io.Writer
	pending string
	exit    bool
}

var _ slash.Host = (*lineHost)(nil)

func (h *lineHost) Runtime() *app.Runtime           { return h.rt.Runtime }
func (h *lineHost) Conversation() *app.Conversation { return h.conv.Load() }
func (h *lineHost) Send(message string)             { h.pending = message }
func (h *lineHost) Busy() bool                      { return false } // a line runs after the turn before it
func (h *lineHost) Interrupt() bool                 { return false }
func (h *lineHost) Exit()                           { h.exit = true }

// Open opens the next conversation as the chat opened its first: the
// run's callbacks and rules, and the progress printer observing it.
func (h *lineHost) Open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
	o.Observer = h.observe
	return h.rt.open(ctx, o)
}

func (h *lineHost) Swap(c *app.Conversation) *app.Conversation { return h.conv.Swap(c) }

func (h *lineHost) Print(kind slash.Kind, text string) {
	switch kind {
	case slash.Error:
		fmt.Fprintln(h.w, "hermes:", text)
	case slash.Warning:
		fmt.Fprintln(h.w, "! "+text)
	default:
		fmt.Fprintln(h.w, text)
	}
}

// Reset prints the last turns of the conversation (a resumed session,
// what an undo left).
func (h *lineHost) Reset(history []llm.Message) {
	turns := slash.Recap(history, 3)
	if len(turns) == 0 {
		return
	}
	if skipped := len(history) - len(turns); skipped > 0 {
		fmt.Fprintf(h.w, "… %d earlier messages\n", skipped)
	}
	for _, m := range turns {
		switch {
		case m.Role == llm.RoleUser:
			fmt.Fprintf(h.w, "> %s\n", m.Content)
		case m.Role == llm.RoleAssistant && m.Content != "":
			fmt.Fprintf(h.w, "%s\n", m.Content)
		case m.Role == llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				fmt.Fprintf(h.w, "→ %s %s\n", c.Name, preview(c.Arguments, 100))
			}
		}
	}
}

// turn runs one turn and prints how it ended.
func (h *lineHost) turn(ctx context.Context, prog *progress, line string) {
	c := h.Conversation()
	res, err := c.Run(ctx, agent.Input{Message: line})
	if err != nil {
		fmt.Fprintln(h.w, "hermes:", err)
		return
	}
	if !prog.takeSawText() && res.FinalResponse != "" {
		fmt.Fprint(h.w, res.FinalResponse) // the model did not stream it
	}
	fmt.Fprintln(h.w)
	c.TitleSession(ctx, res, line)
	switch {
	case res.Interrupted:
		fmt.Fprintln(h.w, "(interrupted)")
	case res.Error != nil:
		fmt.Fprintf(h.w, "hermes: %s: %v\n", res.ExitReason, res.Error)
	}
}

// shell runs a `!cmd` line through the terminal tool and prints its output.
func (h *lineHost) shell(ctx context.Context, command string) {
	out, err := h.Conversation().RunShell(ctx, command)
	if err != nil {
		fmt.Fprintln(h.w, "hermes:", err)
		return
	}
	fmt.Fprintln(h.w, strings.TrimRight(out.Result.Content, "\n"))
}
