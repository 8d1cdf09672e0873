package slash

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Commands that reach the conversation beside its running turn: /steer
// joins it, /queue waits for it, /btw asks a question apart from it.
func asideCommands() []Command {
	return []Command{
		{Name: "steer", Args: "TEXT", Summary: "add TEXT to the running turn, read after its next tool call (idle: sent as a message)", WhileBusy: true, Run: runSteer},
		{Name: "queue", Args: "[TEXT]", Summary: "send TEXT when the running turn ends (idle: now); without TEXT, list what waits", WhileBusy: true, Run: runQueue},
		{Name: "btw", Args: "QUESTION", Summary: "ask a side question about the conversation; neither it nor the answer is kept", WhileBusy: true, Run: runBtw},
	}
}

// runSteer hands text to the running turn, which appends it to the
// result of the tool call that ends its current round, so the model reads
// it at its next call. A turn that ends without another call hands the
// text back and the surface sends it as the next message. With no turn
// running, the text is sent as a message at once: the user wants the
// agent to read it, and nothing else would.
func runSteer(_ context.Context, h Host, text string) error {
	if text == "" {
		return errors.New("/steer TEXT: what the running turn should take into account after its next tool call")
	}
	if !h.Busy() {
		h.Print(Info, "Nothing is running, so this is sent as your message now (/queue TEXT waits for a running turn instead).")
		h.Send(text)
		return nil
	}
	if h.Conversation().Steer(text) {
		h.Print(Info, "Steering: the running turn reads this after its next tool call (if it calls no more tools, it is sent as your next message).")
		return nil
	}
	// The turn is ending (or a shell command runs): it takes no more text.
	if q, ok := h.(Queuer); ok {
		q.Queue(text)
		h.Print(Info, "The running turn is ending; this is queued as your next message instead.")
		return nil
	}
	return errors.New("/steer: the running turn is ending and takes no more text; send it as a message when it has ended")
}

// runQueue sends text once nothing runs: at once when idle, else after
// the running turn and what was queued before it.
func runQueue(_ context.Context, h Host, text string) error {
	q, canQueue := h.(Queuer)
	if text == "" {
		if !canQueue {
			return errors.New("/queue TEXT: the message to send when the running turn ends")
		}
		waiting := q.Queued()
		if len(waiting) == 0 {
			h.Print(Info, "Nothing is queued. /queue TEXT sends TEXT when the running turn ends.")
			return nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d queued, sent in this order when the running turn ends:", len(waiting))
		for i, m := range waiting {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, oneLine(m, 70))
		}
		h.Print(Info, b.String())
		return nil
	}
	if !h.Busy() {
		h.Send(text)
		return nil
	}
	if !canQueue {
		return notAvailable("queue", "send it as a plain message: what a message sent during a turn does here is this chat's busy mode")
	}
	q.Queue(text)
	h.Print(Info, fmt.Sprintf("Queued (%d waiting): sent when the running turn ends.", len(q.Queued())))
	return nil
}

// runBtw answers a side question from a snapshot of the conversation:
// nothing is stored and the running turn, if any, is not disturbed.
func runBtw(ctx context.Context, h Host, question string) error {
	if question == "" {
		return errors.New("/btw QUESTION: a question about the conversation, answered without changing it")
	}
	answer, _, err := h.Conversation().Aside(ctx, question)
	if err != nil {
		return fmt.Errorf("/btw: %w", err)
	}
	h.Print(Markdown, answer)
	h.Print(Info, "(side answer: not kept in the session)")
	return nil
}
