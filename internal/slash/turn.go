package slash

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/checkpoint"
	"github.com/hermes-go/hermes/compress"
)

func turnCommands() []Command {
	return []Command{
		{Name: "stop", Summary: "stop the running turn", WhileBusy: true, Run: runStop},
		{Name: "retry", Summary: "send the last message again (its answer is dropped)", Run: runRetry},
		{Name: "undo", Summary: "remove the last exchange (your message and its answer)", Run: runUndo},
		{Name: "compress", Args: "[focus]", Summary: "summarise the conversation now, keeping what focus names", Run: runCompress},
		{Name: "image", Args: "PATH|URL", Summary: "attach an image to your next message", WhileBusy: true, Run: runImage},
		{Name: "rollback", Args: "[N]", Summary: "restore the workspace to the Nth newest checkpoint (default: the newest)", Run: runRollback},
	}
}

func runStop(_ context.Context, h Host, _ string) error {
	if !h.Interrupt() {
		h.Print(Info, "Nothing is running.")
	}
	return nil
}

func runRetry(ctx context.Context, h Host, _ string) error {
	c := h.Conversation()
	dropped, err := c.Undo(ctx)
	if err != nil {
		return fmt.Errorf("/retry: %w", err)
	}
	h.Reset(c.History())
	c.AttachImages(dropped[0].Images...) // the retried message keeps its images
	h.Send(dropped[0].Content)
	return nil
}

func runUndo(ctx context.Context, h Host, _ string) error {
	c := h.Conversation()
	dropped, err := c.Undo(ctx)
	if err != nil {
		return fmt.Errorf("/undo: %w", err)
	}
	h.Reset(c.History())
	h.Print(Info, fmt.Sprintf("Removed the last exchange (%d messages): %q.", len(dropped), oneLine(dropped[0].Content, 60)))
	return nil
}

func runCompress(ctx context.Context, h Host, focus string) error {
	c, cfg := h.Conversation(), h.Runtime().Config()
	if on := cfg.Compression.Enabled; on != nil && !*on {
		return errors.New("/compress: compression is off (compression.enabled: false in config.yaml)")
	}
	before := len(c.History())
	from := c.SessionID()
	h.Print(Info, "Compressing the conversation…")
	if err := c.Compress(ctx, focus); err != nil {
		if errors.Is(err, compress.ErrNothingToCompress) {
			c := cfg.Compression
			return fmt.Errorf("/compress: nothing to compress: %d messages, and compression keeps the first %d and the last %d (compression.protect_first_n, protect_last_n)",
				before, c.ProtectFirstN, c.ProtectLastN)
		}
		return err
	}
	h.Print(Info, fmt.Sprintf("Compressed %d messages into %d; session %s continues in %s.", before, len(c.History()), from, c.SessionID()))
	return nil
}

func runRollback(ctx context.Context, h Host, arg string) error {
	st := h.Conversation().Checkpoints()
	if st == nil {
		return errors.New("/rollback: checkpoints are off (checkpoints.enabled)")
	}
	n := 1
	if arg != "" {
		var err error
		if n, err = strconv.Atoi(arg); err != nil || n < 1 {
			return fmt.Errorf("/rollback [N]: N is a number from 1 (the newest checkpoint), not %q", arg)
		}
	}
	cps, err := st.List()
	if err != nil {
		return err
	}
	if n > len(cps) {
		return fmt.Errorf("/rollback %d: there are %d checkpoints", n, len(cps))
	}
	target := cps[n-1]
	undo, changes, err := st.Restore(ctx, target.ID)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "restored checkpoint %s (turn %d, %s): %d files changed\n", target.ID, target.Turn, target.Reason, len(changes))
	verb := map[checkpoint.ChangeKind]string{checkpoint.Added: "removed", checkpoint.Modified: "restored", checkpoint.Deleted: "recreated"}
	for _, c := range changes {
		fmt.Fprintf(&b, "  %-9s %s\n", verb[c.Kind], c.Path)
	}
	fmt.Fprintf(&b, "undo with: /rollback (or hermes checkpoints restore %s)", undo.ID)
	h.Print(Info, b.String())
	return nil
}

func runImage(_ context.Context, h Host, ref string) error {
	if ref == "" {
		return errors.New("/image needs a file path or an http(s) URL: /image screenshot.png")
	}
	img, err := h.Conversation().AttachImage(ref)
	if err != nil {
		return fmt.Errorf("/image: %w", err)
	}
	h.Print(Info, fmt.Sprintf("Attached %s to your next message.", img.Placeholder()))
	return nil
}
