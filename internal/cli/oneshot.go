package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
)

// runOneShot runs one prompt. quiet (-z) prints only the final answer;
// otherwise progress goes to stderr.
func runOneShot(ctx context.Context, e *env, f *runFlags, prompt string, withProgress bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	images, err := loadImages(f.images)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	observe := func(ev agent.Event) {
		// -z prints only the answer on stdout; what went wrong on the way
		// still reaches stderr.
		if ev.Kind == agent.EventWarning && ev.Depth == 0 {
			e.warn(ev.Text)
		}
	}
	if withProgress {
		observe = (&progress{w: e.stderr, verbose: f.verbose}).observe
	}
	rt, err := build(ctx, e, f, buildOptions{source: "cli", observer: observe})
	if err != nil {
		if f.usageFile != "" {
			if werr := writeUsage(f.usageFile, reportFrom(nil, err)); werr != nil {
				fmt.Fprintln(e.stderr, "hermes:", werr)
			}
		}
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	c := rt.conv
	if line, short := statusLine(c.Backend(), c.SandboxStatus()); short {
		e.warn(line) // the one line that says what is not enforced
	}

	// Ctrl-C interrupts the turn; the loop returns promptly with what it has.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			c.Interrupt()
		case <-done:
		}
	}()

	res, err := c.Run(ctx, agent.Input{Message: prompt, Images: images})
	if res != nil {
		endSession(e.stderr, c, string(res.ExitReason))
	}
	if f.usageFile != "" {
		report := reportFrom(res, err)
		reportSandbox(&report, c.Backend(), c.SandboxStatus())
		report.Auxiliary = rt.UsageByTask().Auxiliary
		if werr := writeUsage(f.usageFile, report); werr != nil {
			fmt.Fprintln(e.stderr, "hermes:", werr)
		}
	}
	if errors.Is(err, agent.ErrNoVision) {
		return &exitError{code: exitUsage, err: err}
	}
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	// stdout carries the model's answer only (a summary at the budget's
	// end, a truncated answer); status texts go to stderr.
	switch {
	case res.FinalResponse == "":
	case res.Completed || (!res.Failed && !res.Interrupted):
		fmt.Fprintln(e.stdout, res.FinalResponse)
	case res.Interrupted || res.ExitReason == agent.ExitContentFilter:
		fmt.Fprintln(e.stderr, res.FinalResponse)
	}
	switch {
	case res.Completed:
		return nil
	case res.Interrupted:
		return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	case res.Error != nil:
		return &exitError{code: exitFailed, err: fmt.Errorf("%s: %w", res.ExitReason, res.Error)}
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("turn ended without completing (%s)", res.ExitReason)}
}

// loadImages reads the --image flags: files, http(s) or data: URLs.
func loadImages(refs []string) ([]llm.Image, error) {
	var out []llm.Image
	for _, ref := range refs {
		im, err := llm.LoadImage(ref)
		if err != nil {
			return nil, fmt.Errorf("--image %s: %w", ref, err)
		}
		out = append(out, im)
	}
	return out, nil
}
