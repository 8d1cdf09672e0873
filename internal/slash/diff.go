package slash

import (
	"context"
	"fmt"
	"strings"
)

// diffLimit is how much of a diff /diff shows.
const diffLimit = 16 << 10

func diffCommands() []Command {
	return []Command{
		{Name: "diff", Summary: "what changed in the workspace since this session began", WhileBusy: true, Run: runDiff},
	}
}

func runDiff(ctx context.Context, h Host, _ string) error {
	c := h.Conversation()
	d, err := c.WorkspaceDiff(ctx, diffLimit)
	if err != nil {
		return fmt.Errorf("/diff: %w", err)
	}
	if strings.TrimSpace(d.Text) == "" {
		text := "No changes in " + c.Workdir() + " since this session began."
		if d.Since == "" && c.Checkpoints() == nil {
			text += " (Checkpoints are off and it is not a git repository, so changes cannot be seen.)"
		}
		h.Print(Info, text)
		return nil
	}
	var b strings.Builder
	if n := len(d.Changes); n > 0 {
		fmt.Fprintf(&b, "%d file(s) changed since %s:\n", n, d.Since)
		for _, ch := range d.Changes {
			fmt.Fprintf(&b, "  %-8s %s\n", ch.Kind, ch.Path)
		}
		b.WriteString("\n")
	} else {
		fmt.Fprintf(&b, "Changes since %s:\n", d.Since)
	}
	b.WriteString(strings.TrimRight(d.Text, "\n"))
	if d.Cut {
		fmt.Fprintf(&b, "\n… cut at %d KB (hermes checkpoints diff shows the files)", diffLimit>>10)
	}
	h.Print(Info, b.String())
	return nil
}
