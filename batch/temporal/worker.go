package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Worker runs prompts' workflows and activities in this process, with its
// own configuration (provider, keys, sandbox).
type Worker struct {
	// Config is the worker's configuration; a task's settings override
	// its model, max_turns and reasoning effort.
	Config *config.Config
	// Options is the worker's runtime's (Getenv, HTTPClient, Factory).
	Options app.Options
	// Activities bounds the activities (model and tool calls) running at
	// once (default 64).
	Activities int
	// Idle is how long an unused prompt's conversation is kept (default
	// 10 min).
	Idle time.Duration

	rtOnce sync.Once
	rt     *app.Runtime // one for the worker: each prompt is a conversation on it
	rtErr  error

	mu  sync.Mutex
	rts map[string]*held
}

// held is a prompt's conversation on this worker.
type held struct {
	once    sync.Once
	conv    *app.Conversation
	err     error
	cleanup func()
	used    time.Time
	busy    int
}

// Run polls queue until ctx ends.
func (w *Worker) Run(ctx context.Context, c client.Client, queue string) error {
	if queue == "" {
		queue = DefaultTaskQueue
	}
	if w.Activities <= 0 {
		w.Activities = 64
	}
	if w.Idle <= 0 {
		w.Idle = 10 * time.Minute
	}
	wk := worker.New(c, queue, worker.Options{
		MaxConcurrentActivityExecutionSize:      w.Activities,
		MaxConcurrentLocalActivityExecutionSize: 16,
	})
	wk.RegisterWorkflowWithOptions(w.promptWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	wk.RegisterActivityWithOptions(w.setup, activity.RegisterOptions{Name: setupName})
	wk.RegisterActivityWithOptions(w.model, activity.RegisterOptions{Name: modelName})
	wk.RegisterActivityWithOptions(w.tool, activity.RegisterOptions{Name: toolName})
	wk.RegisterActivityWithOptions(w.finish, activity.RegisterOptions{Name: finishName})
	if err := wk.Start(); err != nil {
		return fmt.Errorf("temporal worker: %w", err)
	}
	defer wk.Stop()
	defer w.closeRuntime()
	defer w.closeAll()
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			w.evictIdle()
		}
	}
}

// workerRuntime is the worker's runtime, built on first use.
func (w *Worker) workerRuntime(ctx context.Context) (*app.Runtime, error) {
	w.rtOnce.Do(func() {
		w.rt, w.rtErr = batch.NewRuntime(context.WithoutCancel(ctx), w.Config, w.Options)
	})
	return w.rt, w.rtErr
}

func (w *Worker) closeRuntime() {
	if w.rt != nil {
		w.rt.Close()
	}
}

// runtime returns the prompt's conversation on this worker, opening it
// (and its workspace) on first use. release must be called when done.
func (w *Worker) runtime(ctx context.Context, t Task) (conv *app.Conversation, release func(), err error) {
	key := fmt.Sprintf("%s/%d", t.RunName, t.Prompt.Index)
	w.mu.Lock()
	if w.rts == nil {
		w.rts = map[string]*held{}
	}
	h := w.rts[key]
	if h == nil {
		h = &held{}
		w.rts[key] = h
	}
	h.busy++
	h.used = time.Now()
	w.mu.Unlock()
	release = func() {
		w.mu.Lock()
		h.busy--
		h.used = time.Now()
		w.mu.Unlock()
	}
	h.once.Do(func() {
		dir, cleanup, err := batch.PrepareWorkspace(t.Task, false)
		if err != nil {
			h.err = err
			return
		}
		h.cleanup = cleanup
		rt, err := w.workerRuntime(ctx)
		if err != nil {
			h.err = err
			return
		}
		h.conv, h.err = batch.OpenPrompt(context.WithoutCancel(ctx), rt, app.ConversationOptions{
			Model: t.Model, MaxTurns: t.MaxTurns, ReasoningEffort: t.ReasoningEffort,
		}, t.Toolsets, dir, t.Memory)
	})
	if h.err != nil {
		release()
		w.drop(key, h)
		return nil, nil, h.err
	}
	return h.conv, release, nil
}

// drop forgets a prompt's conversation and closes it.
func (w *Worker) drop(key string, h *held) {
	w.mu.Lock()
	if w.rts[key] == h {
		delete(w.rts, key)
	}
	w.mu.Unlock()
	if h.conv != nil {
		h.conv.Close()
	}
}

func (w *Worker) evictIdle() {
	w.mu.Lock()
	var old []*held
	for k, h := range w.rts {
		if h.busy == 0 && time.Since(h.used) > w.Idle {
			old = append(old, h)
			delete(w.rts, k)
		}
	}
	w.mu.Unlock()
	for _, h := range old {
		if h.conv != nil {
			h.conv.Close()
		}
	}
}

func (w *Worker) closeAll() {
	w.mu.Lock()
	all := w.rts
	w.rts = nil
	w.mu.Unlock()
	for _, h := range all {
		if h.conv != nil {
			h.conv.Close()
		}
	}
}

// heartbeat reports the activity alive until stop is called, so that a
// worker that dies is noticed within the heartbeat timeout rather than
// the activity's whole timeout.
func heartbeat(ctx context.Context) (stop func()) {
	every := time.Second
	if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
		every = max(hb/3, 100*time.Millisecond)
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}

// setup builds the prompt's system prompt and tool list.
func (w *Worker) setup(ctx context.Context, t Task) (*Setup, error) {
	rt, release, err := w.runtime(ctx, t)
	if err != nil {
		return nil, setupError(err)
	}
	defer release()
	sys, err := rt.SystemPrompt(ctx)
	if err != nil {
		return nil, err
	}
	s := &Setup{SystemPrompt: sys}
	for _, sp := range rt.ToolSpecs() {
		d := tool.Def(sp)
		s.Tools = append(s.Tools, ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Toolset: sp.Toolset})
	}
	return s, nil
}

// setupError marks configuration problems as not worth retrying.
func setupError(err error) error {
	var ce *app.ConfigError
	if errors.As(err, &ce) {
		return tsdk.NewNonRetryableApplicationError(err.Error(), "config", err)
	}
	return err
}

// planStep is the local activity that replays the loop.
func (w *Worker) planStep(ctx context.Context, t Task, setup Setup, j Journal) (*Step, error) {
	rt, release, err := w.runtime(ctx, t)
	if err != nil {
		return nil, setupError(err)
	}
	defer release()
	s, err := plan(ctx, rt, t, setup, j)
	var d errDiverged
	var ns errNoStart
	switch {
	case errors.As(err, &d):
		return nil, tsdk.NewNonRetryableApplicationError(err.Error(), "diverged", err)
	case errors.As(err, &ns):
		return nil, tsdk.NewNonRetryableApplicationError(err.Error(), "input", err)
	}
	return s, err
}

// model makes one model call. A provider error the chain gave up on is a
// result, replayed to the loop, which decides what it means.
func (w *Worker) model(ctx context.Context, t Task, req *llm.Request) (*ModelResult, error) {
	rt, release, err := w.runtime(ctx, t)
	if err != nil {
		return nil, setupError(err)
	}
	defer release()
	defer heartbeat(ctx)()
	req.SessionID = activity.GetInfo(ctx).WorkflowExecution.ID
	resp, err := rt.Complete(ctx, req, nil)
	if err != nil {
		if pe, ok := llm.AsProviderError(err); ok && ctx.Err() == nil {
			c := *pe
			c.Err = nil
			return &ModelResult{Error: &c}, nil
		}
		return nil, err
	}
	return &ModelResult{Response: resp}, nil
}

// tool runs one tool call.
func (w *Worker) tool(ctx context.Context, t Task, call tool.Call) (*ToolResult, error) {
	rt, release, err := w.runtime(ctx, t)
	if err != nil {
		return nil, setupError(err)
	}
	defer release()
	defer heartbeat(ctx)()
	o := rt.CallTool(ctx, call)
	if ctx.Err() != nil {
		// Cancelled or timed out here: let Temporal retry it rather than
		// record a result the call never had.
		return nil, ctx.Err()
	}
	return &ToolResult{Content: o.Result.Content, IsError: o.Result.IsError, Status: o.Status}, nil
}

// finish records the prompt's session in the worker's store and releases
// its runtime and workspace.
func (w *Worker) finish(ctx context.Context, in FinishInput) (string, error) {
	rt, release, err := w.runtime(ctx, in.Task)
	if err != nil {
		return "", setupError(err)
	}
	id, err := recordSession(ctx, rt, in)
	release()
	key := fmt.Sprintf("%s/%d", in.Task.RunName, in.Task.Prompt.Index)
	w.mu.Lock()
	h := w.rts[key]
	w.mu.Unlock()
	if h != nil {
		w.drop(key, h)
		if h.cleanup != nil {
			h.cleanup()
		}
	}
	return id, err
}

// recordSession stores the prompt's conversation as its session.
func recordSession(ctx context.Context, rt *app.Conversation, in FinishInput) (string, error) {
	st := rt.Runtime().Store()
	meta := rt.Session()
	meta.Model, meta.Provider = in.Outcome.Model, in.Outcome.Provider
	if err := st.EnsureSession(ctx, meta); err != nil {
		return "", fmt.Errorf("session store: %w", err)
	}
	if in.SystemPrompt != "" {
		if err := st.SetSystemPrompt(ctx, meta.ID, in.SystemPrompt); err != nil {
			return "", fmt.Errorf("session store: %w", err)
		}
	}
	for _, m := range in.Outcome.Messages {
		if err := st.AppendMessage(ctx, meta.ID, m); err != nil {
			return "", fmt.Errorf("session store: %w", err)
		}
	}
	if err := st.AddUsage(ctx, meta.ID, in.Outcome.Usage, in.Outcome.APICalls); err != nil {
		return "", fmt.Errorf("session store: %w", err)
	}
	return meta.ID, rt.End(in.Outcome.ExitReason)
}
