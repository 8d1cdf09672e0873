package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// errDiverged is a replay whose model request is not the recorded one.
type errDiverged struct {
	call int
}

func (e errDiverged) Error() string {
	return fmt.Sprintf("replay diverged at model call %d: the request differs from the one recorded (do all workers run the same hermes with the same agent settings?)", e.call+1)
}

// errNoStart is a turn the agent refused to start.
type errNoStart struct{ err error }

func (e errNoStart) Error() string { return e.err.Error() }
func (e errNoStart) Unwrap() error { return e.err }

// replay is one planning step: the agent loop run over a journal.
type replay struct {
	j      Journal
	cancel context.CancelFunc

	mu    sync.Mutex
	calls int // model calls answered so far
	next  *Step
	err   error
}

// plan runs the loop of the conversation rt over j and returns its next step.
func plan(ctx context.Context, rt *app.Conversation, t Task, setup Setup, j Journal) (*Step, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &replay{j: j, cancel: cancel}
	tools := make([]tool.Tool, len(setup.Tools))
	for i, s := range setup.Tools {
		tools[i] = stub{r: r, spec: tool.Spec{
			Name: s.Name, Description: s.Description, Parameters: json.RawMessage(s.Parameters), Toolset: s.Toolset,
			// One at a time, in call order; never cut twice or timed out here.
			Class: tool.Sequential, NoTimeout: true, MaxResultChars: 1 << 30,
		}}
	}
	a := rt.ReplayAgent(llm.ClientFunc(r.complete), tools)
	res, err := a.Run(ctx, agent.Input{Message: t.Prompt.Text, Images: t.Images, SystemMessage: setup.SystemPrompt, TaskID: fmt.Sprintf("task_%d", t.Prompt.Index), History: []llm.Message{}})
	if err != nil {
		// The turn could not start (a model without vision for an image):
		// replaying it again gives the same answer.
		return nil, errNoStart{err}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	if r.next != nil {
		return r.next, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	errs := map[string]bool{}
	for k, v := range j.Tools {
		errs[callID(k)] = v.IsError
	}
	defs := make([]llm.ToolDef, len(tools))
	for i, t := range tools {
		defs[i] = tool.Def(t.Spec())
	}
	out := &batch.Outcome{
		Messages: res.Messages, Tools: defs, ToolErrors: errs, APICalls: res.APICalls,
		Completed: res.Completed, Partial: res.Partial, Failed: res.Failed, ExitReason: string(res.ExitReason),
		Usage: res.Usage, Model: res.Model, Provider: res.Provider,
	}
	if res.Error != nil && !res.Completed {
		out.Error = res.Error.Error()
	}
	return &Step{Done: out}, nil
}

// stop records the replay's next step (the first one asked for wins) and
// ends the replay.
func (r *replay) stop(s *Step, err error) {
	r.mu.Lock()
	if r.next == nil && r.err == nil {
		r.next, r.err = s, err
	}
	r.mu.Unlock()
	r.cancel()
}

// complete answers the loop's model calls from the journal.
func (r *replay) complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	r.mu.Lock()
	k := r.calls
	r.calls++
	r.mu.Unlock()
	fp := fingerprint(req)
	if k < len(r.j.Models) {
		rec := r.j.Models[k]
		if rec.Fingerprint != fp {
			r.stop(nil, errDiverged{k})
			<-ctx.Done()
			return nil, ctx.Err()
		}
		if rec.Error != nil {
			e := *rec.Error
			return nil, &e
		}
		resp := *rec.Response
		resp.Message = resp.Message.Clone()
		return &resp, nil
	}
	r.stop(&Step{Model: req, Fingerprint: fp}, nil)
	<-ctx.Done()
	return nil, ctx.Err()
}

// toolKey names a tool call in the journal: the model call it came from
// and its id (providers may reuse ids across replies).
func (r *replay) toolKey(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("%d/%s", r.calls, id)
}

func callID(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[i+1:]
		}
	}
	return key
}

// stub stands in for a tool: it answers from the journal, and a call the
// journal has no result for is the replay's next step.
type stub struct {
	r    *replay
	spec tool.Spec
}

func (s stub) Spec() tool.Spec { return s.spec }

func (s stub) Run(ctx context.Context, c tool.Call) (tool.Result, error) {
	key := s.r.toolKey(c.ID)
	if res, ok := s.r.j.Tools[key]; ok {
		return tool.Result{Content: res.Content, IsError: res.IsError}, nil
	}
	s.r.stop(&Step{Tool: &ToolStep{Key: key, Call: c}}, nil)
	<-ctx.Done()
	return tool.Result{}, ctx.Err()
}

// fingerprint hashes what a request asks of the model: the messages' roles,
// text, reasoning and tool calls, and the tools offered (not times).
func fingerprint(req *llm.Request) string {
	type msg struct {
		Role       llm.Role
		Content    string
		Reasoning  string
		ToolCalls  []llm.ToolCall
		ToolCallID string
	}
	v := struct {
		Model    string
		Messages []msg
		Tools    []string
	}{Model: req.Model}
	for _, m := range req.Messages {
		v.Messages = append(v.Messages, msg{m.Role, m.Content, m.Reasoning, m.ToolCalls, m.ToolCallID})
	}
	for _, t := range req.Tools {
		v.Tools = append(v.Tools, t.Name)
	}
	b, _ := json.Marshal(v)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:12])
}
