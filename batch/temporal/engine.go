package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/hermes-go/hermes/batch"
)

// Engine submits each prompt as a workflow and waits for its outcome; the
// batch runner writes it like any other. Settings fills what the workers
// are asked to run the prompt with.
type Engine struct {
	Client   client.Client
	Queue    string
	Settings Task
}

// Name implements batch.Engine.
func (e *Engine) Name() string { return "temporal" }

// Run implements batch.Engine. The workflow's id is derived from the run,
// the prompt and its settings: submitting it again (a resumed run, after
// the submitter died) finds the workflow already running, or its result
// if it finished, and runs nothing twice. A workflow that failed is
// started anew. When ctx ends the workflow goes on; --resume collects it.
func (e *Engine) Run(ctx context.Context, bt batch.Task) (*batch.Outcome, error) {
	t := e.Settings
	t.Task = bt
	queue := e.Queue
	if queue == "" {
		queue = DefaultTaskQueue
	}
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       WorkflowID(t),
		TaskQueue:                queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
	}, WorkflowName, t)
	if err != nil {
		return nil, fmt.Errorf("starting the workflow of prompt %d: %w", bt.Prompt.Index, err)
	}
	var out batch.Outcome
	if err := run.Get(ctx, &out); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("workflow %s: %w", run.GetID(), err)
	}
	return &out, nil
}

// WorkflowID names a prompt's workflow: run, index, and a digest of what
// it runs with.
func WorkflowID(t Task) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%s\x00%v", t.Prompt.Text, strings.Join(t.Toolsets, ","), t.Model, t.MaxTurns, t.ReasoningEffort, t.Memory)
	return fmt.Sprintf("hermes-batch/%s/%d/%s", t.RunName, t.Prompt.Index, hex.EncodeToString(h.Sum(nil))[:12])
}
