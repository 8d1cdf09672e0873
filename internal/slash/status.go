package slash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/session"
)

// Profile names the profile the process runs under, for /status ("" for
// none). Profiles select $HERMES_HOME/profiles/NAME; -p NAME and
// HERMES_PROFILE choose one, and the chosen home is then HERMES_HOME.
var Profile = func() string {
	if p := os.Getenv("HERMES_PROFILE"); p != "" {
		return p
	}
	return config.ProfileOf(os.Getenv("HERMES_HOME"))
}

func statusCommands() []Command {
	return []Command{
		{Name: "status", Summary: "the session, model, tokens, context, sandbox, directory, queue and background tasks", WhileBusy: true, Run: runStatus},
	}
}

func runStatus(ctx context.Context, h Host, _ string) error {
	c := h.Conversation()
	s, err := c.Stored(ctx)
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("/status: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "session   %s%s", c.SessionID(), quoted(s.Title))
	if s.Source != "" {
		fmt.Fprintf(&b, " · source %s", s.Source)
	}
	if s.ParentID != "" {
		fmt.Fprintf(&b, " · parent %s", s.ParentID)
	}
	model, prov := c.Model()
	fmt.Fprintf(&b, "\nmodel     %s on %s", model, prov)
	if m, p, ok := c.PendingModel(); ok {
		fmt.Fprintf(&b, " (from the next turn: %s on %s)", m, p)
	}
	if p := Profile(); p != "" {
		fmt.Fprintf(&b, "\nprofile   %s", p)
	}
	fmt.Fprintf(&b, "\ntokens    %d in, %d out · %d API calls · %d messages", s.Usage.InputTokens, s.Usage.OutputTokens, s.APICalls, s.MessageCount)
	ctxUse := c.Context()
	fmt.Fprintf(&b, "\ncontext   %s", contextLine(ctxUse.Tokens, ctxUse.Window))
	fmt.Fprintf(&b, "\nsandbox   %s", c.SandboxStatus())
	if c.Yolo() {
		b.WriteString(" · YOLO on")
	}
	fmt.Fprintf(&b, "\ndirectory %s", c.Workdir())
	state := "idle"
	if h.Busy() {
		state = "a turn is running"
	}
	fmt.Fprintf(&b, "\nnow       %s", state)
	if q, ok := h.(Queuer); ok {
		waiting := q.Queued()
		fmt.Fprintf(&b, "\nqueued    %d", len(waiting))
		for i, m := range waiting {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, oneLine(m, 60))
		}
	}
	if bh, ok := h.(Backgrounder); ok {
		tasks := bh.Background().Running()
		fmt.Fprintf(&b, "\nbackground %d running", len(tasks))
		for _, t := range tasks {
			fmt.Fprintf(&b, "\n  %d. session %s: %s", t.ID, t.SessionID, oneLine(t.Prompt, 50))
		}
	}
	h.Print(Info, b.String())
	return nil
}
