package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/session"
)

func sessionCommands() []Command {
	return []Command{
		{Name: "new", Aliases: []string{"reset"}, Summary: "start a new session (the current one is kept and can be resumed)", Run: runNew},
		{Name: "clear", Summary: "clear the screen and start a new session", Run: runClear},
		{Name: "resume", Args: "[id|title]", Summary: "continue a stored session (without an argument: list recent ones)", Run: runResume},
		{Name: "sessions", Args: "[N]", Summary: "list recent sessions", WhileBusy: true, Run: runSessions},
		{Name: "title", Args: "[name]", Summary: "name the current session (without a name: show it)", WhileBusy: true, Run: runTitle},
		{Name: "exit", Aliases: []string{"quit"}, Summary: "leave the chat", WhileBusy: true, Run: runExit},
	}
}

func runNew(ctx context.Context, h Host, _ string) error {
	old := h.Conversation().SessionID()
	c, err := reopen(ctx, h, "", "new_session")
	if err != nil {
		return err
	}
	h.Print(Info, fmt.Sprintf("New session %s (the last one, %s, is kept: /resume %s).", c.SessionID(), old, old))
	return nil
}

func runClear(ctx context.Context, h Host, _ string) error {
	c, err := reopen(ctx, h, "", "new_session")
	if err != nil {
		return err
	}
	h.Reset(nil)
	h.Print(Info, "New session "+c.SessionID()+".")
	return nil
}

func runResume(ctx context.Context, h Host, args string) error {
	if args == "" {
		if p, ok := h.(Picker); ok {
			return pickSession(ctx, h, p)
		}
		if err := listSessions(ctx, h, 10); err != nil {
			return err
		}
		h.Print(Info, "Resume one with /resume ID or /resume TITLE.")
		return nil
	}
	return resume(ctx, h, args)
}

// resume moves the surface to the stored session ref names.
func resume(ctx context.Context, h Host, args string) error {
	s, err := h.Runtime().Store().Resolve(ctx, args)
	if err != nil {
		return fmt.Errorf("resume %q: %w", args, err)
	}
	if cur := h.Conversation().SessionID(); s.ID == cur {
		return fmt.Errorf("resume %q: that is the current session (%s)", args, s.ID)
	}
	c, err := reopen(ctx, h, s.ID, "resumed_other")
	if err != nil {
		return err
	}
	if s, err = c.Stored(ctx); err != nil {
		return err
	}
	h.Reset(c.History())
	h.Print(Info, fmt.Sprintf("Resumed session %s%s: %d messages, last active %s.", s.ID, quoted(s.Title), s.MessageCount,
		s.LastActive.Local().Format("2006-01-02 15:04")))
	return nil
}

// reopen moves the surface to another conversation, /new and /resume
// being a Close and an Open: a stored session (resume, an id) or a new
// one, on the current conversation's model and yolo setting. The new one
// is opened first, so a session that cannot be opened leaves the current
// one as it was; then the current one is ended with reason and closed.
func reopen(ctx context.Context, h Host, resume, reason string) (*app.Conversation, error) {
	return reopenWith(ctx, h, app.ConversationOptions{Resume: resume}, reason)
}

// reopenWith is reopen to the session o opens (Resume, Fork, or a new
// one).
func reopenWith(ctx context.Context, h Host, o app.ConversationOptions, reason string) (*app.Conversation, error) {
	cur := h.Conversation()
	if cur.Busy() {
		return nil, agent.ErrBusy
	}
	o.Yolo = cur.Yolo()
	if model := app.ModelID(cur.Endpoint()); model != app.ModelID(h.Runtime().Endpoint()) {
		o.Model = model // switched with /model: the next session stays on it
	}
	c, err := h.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	old := h.Swap(c)
	if err := old.End(reason); err != nil {
		h.Print(Warning, err.Error())
	}
	if err := old.Close(); err != nil {
		h.Print(Warning, fmt.Sprintf("session %s: %v", old.SessionID(), err))
	}
	return c, nil
}

// runSessions lists recent sessions: in a surface that can pick (and
// while no turn runs, since resuming waits for it) as a list to choose
// one to resume from, else as a table.
func runSessions(ctx context.Context, h Host, args string) error {
	n := 10
	if args != "" {
		if _, err := fmt.Sscanf(args, "%d", &n); err != nil || n < 1 {
			return fmt.Errorf("/sessions [N]: N is a number of sessions, not %q", args)
		}
	} else if p, ok := h.(Picker); ok && !h.Busy() {
		return pickSession(ctx, h, p)
	}
	return listSessions(ctx, h, n)
}

// pickerSessions is how many sessions the picker offers.
const pickerSessions = 50

// pickSession lets the user choose a recent session and resumes it.
func pickSession(ctx context.Context, h Host, p Picker) error {
	rows, err := h.Runtime().Store().List(ctx, session.ListOptions{Limit: pickerSessions, ExcludeSources: []string{"subagent"}})
	if err != nil {
		return err
	}
	cur := h.Conversation().SessionID()
	var ids []string
	var items []PickItem
	for _, r := range rows {
		if r.ID == cur {
			continue
		}
		title := r.Title
		if title == "" {
			title = oneLine(r.Preview, 50)
		}
		if title == "" {
			title = "(untitled)"
		}
		ids = append(ids, r.ID)
		items = append(items, PickItem{Title: title, Detail: fmt.Sprintf("%s · %d msgs · %s · %s", r.LastActive.Local().Format("2006-01-02 15:04"), r.MessageCount, r.Source, r.ID)})
	}
	if len(items) == 0 {
		h.Print(Info, "No other stored sessions to resume.")
		return nil
	}
	i, err := p.Pick(ctx, "Resume a session", items)
	if errors.Is(err, ErrPickCancelled) {
		h.Print(Info, "No session chosen.")
		return nil
	}
	if err != nil {
		return err
	}
	return resume(ctx, h, ids[i])
}

// listSessions prints the n most recent sessions as a table.
func listSessions(ctx context.Context, h Host, n int) error {
	rows, err := h.Runtime().Store().List(ctx, session.ListOptions{Limit: n, ExcludeSources: []string{"subagent"}})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		h.Print(Info, "No stored sessions yet.")
		return nil
	}
	cur := h.Conversation().SessionID()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tTITLE\tMSGS\tLAST ACTIVE\tPREVIEW")
	for _, r := range rows {
		mark := " "
		if r.ID == cur {
			mark = "*"
		}
		fmt.Fprintf(tw, "%s %s\t%s\t%d\t%s\t%s\n", mark, r.ID, r.Title, r.MessageCount, ago(r.LastActive), oneLine(r.Preview, 40))
	}
	tw.Flush()
	h.Print(Info, strings.TrimRight(b.String(), "\n"))
	return nil
}

func runTitle(ctx context.Context, h Host, args string) error {
	c := h.Conversation()
	if args == "" {
		s, err := c.Stored(ctx)
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			return err
		}
		if s.Title == "" {
			h.Print(Info, "This session has no title yet; set one with /title NAME.")
		} else {
			h.Print(Info, fmt.Sprintf("Session %s is %q.", s.ID, s.Title))
		}
		return nil
	}
	if err := c.SetTitle(ctx, args); err != nil {
		return err
	}
	h.Print(Info, fmt.Sprintf("Session %s is now %q.", c.SessionID(), strings.Join(strings.Fields(args), " ")))
	return nil
}

func runExit(ctx context.Context, h Host, _ string) error {
	h.Interrupt()
	h.Exit()
	return nil
}

func quoted(title string) string {
	if title == "" {
		return ""
	}
	return fmt.Sprintf(" %q", title)
}

// ago says how long ago t was, briefly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02 15:04")
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
