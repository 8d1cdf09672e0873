package slash

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/session"
)

func branchCommands() []Command {
	return []Command{
		{Name: "branch", Aliases: []string{"fork"}, Args: "[title]", Summary: "continue in a copy of this session (the original stays as it is, resumable)", Run: runBranch},
	}
}

// runBranch forks the session: a new session holding a copy of its
// history, task list and system prompt, whose parent is the original;
// the surface continues in the copy. The original keeps its messages and
// can be resumed.
func runBranch(ctx context.Context, h Host, title string) error {
	cur := h.Conversation()
	s, err := cur.Stored(ctx)
	if errors.Is(err, session.ErrNotFound) {
		return errors.New("/branch: this session has no messages yet, so there is nothing to branch")
	}
	if err != nil {
		return fmt.Errorf("/branch: %w", err)
	}
	c, err := reopenWith(ctx, h, app.ConversationOptions{Fork: s.ID}, "branched")
	if err != nil {
		return fmt.Errorf("/branch: %w", err)
	}
	if title != "" {
		if err := c.SetTitle(ctx, title); err != nil {
			h.Print(Warning, fmt.Sprintf("/branch: the branch keeps no title: %v", err))
		}
	}
	h.Print(Info, fmt.Sprintf("Branched session %s%s into %s: you continue in the branch (%d messages copied). The original is unchanged: /resume %s goes back to it.",
		s.ID, quoted(s.Title), c.SessionID(), len(c.History()), s.ID))
	return nil
}
