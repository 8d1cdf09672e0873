package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// fakeEngine answers each prompt from a function.
type fakeEngine struct {
	run func(ctx context.Context, t Task) (*Outcome, error)
}

func (f fakeEngine) Name() string { return "fake" }
func (f fakeEngine) Run(ctx context.Context, t Task) (*Outcome, error) {
	return f.run(ctx, t)
}

func answered(t Task) *Outcome {
	return &Outcome{Messages: []llm.Message{llm.User(t.Prompt.Text), llm.Assistant("ok")}, Completed: true, APICalls: 1, ExitReason: "text_response"}
}

// Ctrl-C drops the prompts still running: nothing of them is written,
// statistics.json says how far the run got, and --resume finishes it.
func TestInterruptedRunIsFinishedByResume(t *testing.T) {
	dir := t.TempDir()
	ps := prompts(20)
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	eng := fakeEngine{func(ctx context.Context, t Task) (*Outcome, error) {
		if t.Prompt.Index >= 10 {
			if started.Add(1) == 1 {
				cancel()
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return answered(t), nil
	}}
	opts := Options{Prompts: ps, RunName: "r", Dir: dir, Workers: 1, Engine: eng, Known: []string{"terminal"}, Now: fixedNow}
	sum, err := Run(ctx, opts)
	if err != nil || !sum.Interrupted || sum.Ran != 10 || sum.Statistics.Trajectories != 10 || sum.Statistics.Remaining != 10 {
		t.Fatalf("interrupted run: %+v, %v", sum, err)
	}
	opts.Resume = true
	opts.Engine = fakeEngine{func(ctx context.Context, t Task) (*Outcome, error) {
		if t.Prompt.Index < 10 {
			return nil, fmt.Errorf("prompt %d ran twice", t.Prompt.Index)
		}
		return answered(t), nil
	}}
	sum, err = Run(context.Background(), opts)
	if err != nil || sum.Ran != 10 || sum.Skipped != 10 || sum.Statistics.Completed != 20 || sum.Statistics.Errors != 0 {
		t.Fatalf("resumed run: %+v, %v", sum, err)
	}
}

func TestPromptsThatFailAreRecordedAndRetried(t *testing.T) {
	dir := t.TempDir()
	ps := prompts(3)
	ps[2].Image = "cat.png"
	calls := map[int]int{}
	eng := fakeEngine{func(ctx context.Context, t Task) (*Outcome, error) {
		calls[t.Prompt.Index]++
		if t.Prompt.Index == 1 && calls[1] == 1 {
			return nil, errors.New("provider unreachable")
		}
		return answered(t), nil
	}}
	opts := Options{Prompts: ps, RunName: "r", Dir: dir, Workers: 1, Engine: eng, Known: []string{"terminal"}, Now: fixedNow}
	sum, err := Run(context.Background(), opts)
	if err != nil || sum.Statistics.Errors != 2 || sum.Statistics.Completed != 1 || calls[2] != 0 {
		t.Fatalf("%+v, %v, calls %v", sum, err, calls)
	}
	opts.Resume = true
	sum, _ = Run(context.Background(), opts)
	if sum.Statistics.Completed != 2 || sum.Statistics.Errors != 1 || calls[0] != 1 || calls[1] != 2 {
		t.Fatalf("resume: %+v, calls %v", sum.Statistics, calls)
	}
	if _, err := Run(context.Background(), Options{Prompts: ps, RunName: "a/b", Engine: eng}); err == nil || !strings.Contains(err.Error(), "plain name") {
		t.Errorf("run name with a slash: %v", err)
	}
	if _, err := Run(context.Background(), Options{Prompts: ps, RunName: "x", Dir: t.TempDir(), Engine: eng, Toolsets: []string{"a"}, Distribution: "default"}); err == nil {
		t.Error("--toolsets with --distribution is not an error")
	}
}
