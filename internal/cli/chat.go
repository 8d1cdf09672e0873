package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/spf13/cobra"
)

func newChatCmd(e *env, f *runFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "chat",
		Short: "Chat with the agent (interactive), or run one query with -q",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("query") {
				prompt, err := promptFlag("-q", f.query, e.stdin)
				if err != nil {
					return err
				}
				return runOneShot(cmd.Context(), e, f, prompt, !f.quiet)
			}
			if f.oneshot {
				return &exitError{code: exitUsage, err: errors.New("--oneshot needs a query: hermes chat -q \"...\" --oneshot")}
			}
			return runInteractive(cmd.Context(), e, f)
		},
	}
	addRunFlags(c.Flags(), f)
	c.Flags().StringVarP(&f.query, "query", "q", "", "the message to send (-: read it from standard input)")
	c.Flags().BoolVar(&f.oneshot, "oneshot", false, "run the query and exit (progress on stderr, answer on stdout)")
	c.Flags().BoolVarP(&f.quiet, "quiet", "Q", false, "no progress output")
	c.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "more progress output")
	return c
}

// runInteractive is a line-oriented chat: each line is a turn; Ctrl-C
// interrupts a running turn, and at the prompt ends the chat.
func runInteractive(ctx context.Context, e *env, f *runFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	images, err := loadImages(f.images)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	rt, err := build(ctx, e, f, buildOptions{interactive: true, source: "cli"})
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	rt.Agent().AttachImages(images...) // --image goes with the first prompt
	prog := &progress{w: e.stderr, showText: true, verbose: f.verbose}
	rt.Observe(prog.observe)

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	defer rt.endSession(e.stderr, "user_exit")
	fmt.Fprintf(e.stderr, "hermes %s · %s · session %s · Ctrl-D to quit\n%s\n", Version, rt.Endpoint(), rt.Agent().SessionID(), rt.SandboxStatus())
	for {
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
		if line == "/exit" || line == "/quit" {
			return nil
		}
		if arg, ok := strings.CutPrefix(line, "/rollback"); ok && (arg == "" || arg[0] == ' ') {
			if err := rollback(ctx, e.stderr, rt.Checkpoints(), strings.TrimSpace(arg)); err != nil {
				fmt.Fprintln(e.stderr, "hermes:", err)
			}
			continue
		}
		done := make(chan struct{})
		go func() {
			select {
			case <-sigs:
				rt.Agent().Interrupt()
			case <-done:
			}
		}()
		res, err := rt.Agent().Run(ctx, agent.Input{Message: line})
		close(done)
		if err != nil {
			fmt.Fprintln(e.stderr, "hermes:", err)
			continue
		}
		if !prog.takeSawText() && res.FinalResponse != "" {
			fmt.Fprint(e.stderr, res.FinalResponse) // the model did not stream it
		}
		fmt.Fprintln(e.stderr)
		rt.TitleSession(ctx, res, line)
		switch {
		case res.Interrupted:
			fmt.Fprintln(e.stderr, "(interrupted)")
		case res.Error != nil:
			fmt.Fprintf(e.stderr, "hermes: %s: %v\n", res.ExitReason, res.Error)
		}
	}
}
