package slash

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
)

// bgSource is the source of a background conversation's session.
const bgSource = "bg"

// bgUnattended is what the model of a background conversation reads when
// a command needs approval: nobody answers there.
const bgUnattended = "this runs as a background task (/bg) that nobody attends: dangerous commands are refused; " +
	"say what you would run and why, and the user can run it in the chat"

// Background holds a surface's background conversations (/bg). Each is a
// conversation of its own on the surface's runtime (source "bg", its own
// session, the current model) that runs one turn unattended: a command
// that needs approval is refused. Its answer, failure or interruption is
// printed to the surface as a note when it ends. The zero value is ready;
// Close interrupts what still runs. Safe for concurrent use.
type Background struct {
	// Notify, when set, shows the notes of tasks that end instead of
	// the host's Print (a surface that holds them while a turn prints).
	Notify func(kind Kind, text string)

	mu     sync.Mutex
	seq    int
	tasks  []*BgTask
	closed bool
	wg     sync.WaitGroup
}

// BgTask is one background conversation.
type BgTask struct {
	ID        int
	Prompt    string
	SessionID string
	Started   time.Time
	conv      *app.Conversation
}

// Start opens a background conversation on h's runtime and runs prompt in
// it. It says so with h.Print before the task can end; the note goes to
// h.Print when it ends.
func (b *Background) Start(ctx context.Context, h Host, prompt string) (*BgTask, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, errors.New("background tasks are closed")
	}
	o := app.ConversationOptions{Source: bgSource, Unattended: bgUnattended}
	cur := h.Conversation()
	if model := app.ModelID(cur.Endpoint()); model != app.ModelID(h.Runtime().Endpoint()) {
		o.Model = model // switched with /model: the task runs on it too
	}
	conv, err := h.Runtime().Open(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("opening a background conversation: %w", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		conv.Close()
		return nil, errors.New("background tasks are closed")
	}
	b.seq++
	t := &BgTask{ID: b.seq, Prompt: prompt, SessionID: conv.SessionID(), Started: time.Now(), conv: conv}
	b.tasks = append(b.tasks, t)
	b.wg.Add(1)
	b.mu.Unlock()
	h.Print(Info, fmt.Sprintf("Background task %d started in session %s; its answer is shown here when it is done (/bg lists, /bg stop %d stops it).", t.ID, t.SessionID, t.ID))
	go b.run(h, t)
	return t, nil
}

// run runs the task's turn, ends its session and says how it went, once
// the task has left the list.
func (b *Background) run(h Host, t *BgTask) {
	defer b.wg.Done()
	say := h.Print
	if b.Notify != nil {
		say = b.Notify
	}
	type note struct {
		kind Kind
		text string
	}
	var notes []note
	res, err := t.conv.Run(context.Background(), agent.Input{Message: t.Prompt})
	reason := "bg_done"
	switch {
	case err != nil:
		reason = "bg_failed"
		notes = append(notes, note{Error, fmt.Sprintf("Background task %d (session %s) failed: %v", t.ID, t.SessionID, err)})
	case res.Interrupted:
		reason = "bg_stopped"
		notes = append(notes, note{Warning, fmt.Sprintf("Background task %d (session %s) was stopped.", t.ID, t.SessionID)})
	case res.Error != nil:
		reason = "bg_failed"
		notes = append(notes, note{Error, fmt.Sprintf("Background task %d (session %s) failed: %s: %v", t.ID, t.SessionID, res.ExitReason, res.Error)})
	default:
		notes = append(notes,
			note{Info, fmt.Sprintf("Background task %d finished (session %s, /resume %s to continue it): %s", t.ID, t.SessionID, t.SessionID, oneLine(t.Prompt, 50))},
			note{Markdown, res.FinalResponse})
	}
	if err := t.conv.End(reason); err != nil {
		notes = append(notes, note{Warning, err.Error()})
	}
	if err := t.conv.Close(); err != nil {
		notes = append(notes, note{Warning, fmt.Sprintf("background session %s: %v", t.SessionID, err)})
	}
	b.mu.Lock()
	for i, x := range b.tasks {
		if x == t {
			b.tasks = append(b.tasks[:i], b.tasks[i+1:]...)
			break
		}
	}
	b.mu.Unlock()
	for _, n := range notes {
		say(n.kind, n.text)
	}
}

// Running lists the tasks still running, oldest first.
func (b *Background) Running() []*BgTask {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*BgTask(nil), b.tasks...)
}

// Stop interrupts task id; false when no such task runs.
func (b *Background) Stop(id int) bool {
	for _, t := range b.Running() {
		if t.ID == id {
			t.conv.Interrupt()
			return true
		}
	}
	return false
}

// Close interrupts the running tasks and waits for them to end (their
// notes printed, their sessions ended and closed); no task starts after.
func (b *Background) Close() {
	b.mu.Lock()
	b.closed = true
	tasks := append([]*BgTask(nil), b.tasks...)
	b.mu.Unlock()
	for _, t := range tasks {
		t.conv.Interrupt()
	}
	b.wg.Wait()
}

func bgCommands() []Command {
	return []Command{
		{Name: "bg", Args: "[PROMPT | stop N]", Summary: "run PROMPT in a background session, its answer shown when done; alone: list them", WhileBusy: true, Run: runBg},
	}
}

func runBg(ctx context.Context, h Host, args string) error {
	bh, ok := h.(Backgrounder)
	if !ok {
		return notAvailable("bg", "this surface does not run background tasks")
	}
	b := bh.Background()
	if args == "" {
		return listBg(h, b)
	}
	if rest, ok := strings.CutPrefix(args, "stop "); ok {
		if id, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			if !b.Stop(id) {
				return fmt.Errorf("/bg stop %d: no background task %d is running (/bg lists them)", id, id)
			}
			h.Print(Info, fmt.Sprintf("Stopping background task %d.", id))
			return nil
		}
	}
	if _, err := b.Start(ctx, h, args); err != nil {
		return fmt.Errorf("/bg: %w", err)
	}
	return nil
}

func listBg(h Host, b *Background) error {
	tasks := b.Running()
	if len(tasks) == 0 {
		h.Print(Info, "No background tasks are running. /bg PROMPT starts one.")
		return nil
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%d background task(s) running:", len(tasks))
	for _, t := range tasks {
		fmt.Fprintf(&s, "\n  %d  %s  session %s  %s", t.ID, time.Since(t.Started).Round(time.Second), t.SessionID, oneLine(t.Prompt, 50))
	}
	s.WriteString("\n/bg stop N stops one.")
	h.Print(Info, s.String())
	return nil
}
