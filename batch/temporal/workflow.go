package temporal

import (
	"time"

	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hermes-go/hermes/batch"
)

// Default activity timeouts, in seconds.
const (
	DefaultModelTimeout = 600
	DefaultToolTimeout  = 900
	DefaultHeartbeat    = 30
)

// promptWorkflow runs one prompt: set up, then plan and run one activity
// at a time until the replayed loop reaches the end of its turn. Only
// workflow APIs are used here; the loop runs in the planning step.
func (w *Worker) promptWorkflow(ctx workflow.Context, t Task) (*batch.Outcome, error) {
	begin := workflow.Now(ctx)
	retry := &tsdk.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 10,
		NonRetryableErrorTypes: []string{"config", "diverged", "input"}}
	hb := seconds(t.Heartbeat, DefaultHeartbeat)
	modelCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: seconds(t.ModelTimeout, DefaultModelTimeout), HeartbeatTimeout: hb, RetryPolicy: retry})
	toolCtx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: seconds(t.ToolTimeout, DefaultToolTimeout), HeartbeatTimeout: hb, RetryPolicy: retry})
	planCtx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute, RetryPolicy: retry})

	var setup Setup
	if err := workflow.ExecuteActivity(toolCtx, setupName, t).Get(ctx, &setup); err != nil {
		return nil, err
	}
	j := Journal{Tools: map[string]ToolResult{}}
	for {
		var step Step
		if err := workflow.ExecuteLocalActivity(planCtx, w.planStep, t, setup, j).Get(ctx, &step); err != nil {
			return nil, err
		}
		switch {
		case step.Done != nil:
			out := step.Done
			var id string
			err := workflow.ExecuteActivity(toolCtx, finishName, FinishInput{Task: t, SystemPrompt: setup.SystemPrompt, Outcome: *out}).Get(ctx, &id)
			if err != nil {
				workflow.GetLogger(ctx).Warn("recording the session failed", "error", err)
			}
			out.SessionID = id
			out.Duration = workflow.Now(ctx).Sub(begin)
			return out, nil
		case step.Model != nil:
			var r ModelResult
			if err := workflow.ExecuteActivity(modelCtx, modelName, t, step.Model).Get(ctx, &r); err != nil {
				return nil, err
			}
			j.Models = append(j.Models, ModelRecord{Fingerprint: step.Fingerprint, ModelResult: r})
		case step.Tool != nil:
			var r ToolResult
			if err := workflow.ExecuteActivity(toolCtx, toolName, t, step.Tool.Call).Get(ctx, &r); err != nil {
				return nil, err
			}
			j.Tools[step.Tool.Key] = r
		}
	}
}

func seconds(n, def int) time.Duration {
	if n <= 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}
