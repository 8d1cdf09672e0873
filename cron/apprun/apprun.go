// Package apprun runs cron jobs as conversations of an app.Runtime: the
// cron.Executor of hermes cron and hermes gateway.
//
// Each run is a fresh conversation with source "cron" on the job's
// model, toolsets, skills and working directory. Nobody attends it:
// a command that needs approval is denied, the model is told that
// nobody is there to approve it and not to retry, and the run's outcome
// lists it so its status is denied. The sandbox is the runtime's. The
// cronjob tool is not offered in these conversations (package app leaves
// it out for source cron), so a run cannot schedule more runs.
package apprun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
)

// Unattended is what the model reads when a command needed approval.
const Unattended = "this is a scheduled cron run and nobody is there to approve commands, so commands that need approval are denied; " +
	"do not retry this command or a variation of it: finish without it and say in your answer what could not be done"

// systemNote tells the model how its answer is used.
const systemNote = "You are running a scheduled job (hermes cron). Nobody reads your intermediate messages and nobody can answer " +
	"questions: work on your own. Your final answer is delivered as the job's report. If there is nothing worth reporting, " +
	"answer exactly " + cron.Silent + " and nothing is delivered."

// Executor opens each run's conversation on the runtime Runtime returns
// for the job (jobs may name their own provider or endpoint).
type Executor struct {
	Runtime func(ctx context.Context, job cron.Job) (*app.Runtime, error)
}

// Execute runs the job's prompt once and returns the answer.
func (e Executor) Execute(ctx context.Context, job cron.Job) (cron.Outcome, error) {
	rt, err := e.Runtime(ctx, job)
	if err != nil {
		return cron.Outcome{}, err
	}
	var mu sync.Mutex
	var denied []string
	conv, err := rt.Open(ctx, app.ConversationOptions{
		Source:       "cron",
		Platform:     "cron",
		Model:        job.Model,
		Toolsets:     job.Toolsets,
		Skills:       job.Skills,
		Workdir:      job.Workdir,
		SystemPrompt: systemNote,
		// Nobody answers: the command is noted and denied, and the model
		// reads Unattended as the reason.
		Approve: func(_ context.Context, p approval.Prompt) (approval.Choice, error) {
			mu.Lock()
			denied = append(denied, p.Command)
			mu.Unlock()
			return approval.Deny, errors.New(Unattended)
		},
		// Commands refused outright (the hardline list) never reach
		// Approve; their results say so.
		Observer: func(ev agent.Event) {
			if ev.Kind == agent.EventToolFinished && ev.Tool != nil && ev.Tool.Status == tool.StatusBlocked &&
				strings.Contains(ev.Tool.Result, "BLOCKED") {
				mu.Lock()
				denied = append(denied, firstLine(ev.Tool.Result))
				mu.Unlock()
			}
		},
	})
	if err != nil {
		return cron.Outcome{}, fmt.Errorf("open the run's conversation: %w", err)
	}
	defer conv.Close()
	prompt := job.Prompt
	if strings.TrimSpace(prompt) == "" {
		prompt = "Run the preloaded skill(s) " + strings.Join(job.Skills, ", ") + "."
	}
	answer, err := conv.Chat(ctx, prompt)
	out := cron.Outcome{Answer: answer, SessionID: conv.SessionID()}
	mu.Lock()
	out.Denied = append(out.Denied, denied...)
	mu.Unlock()
	return out, err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
