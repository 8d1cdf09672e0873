package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/hermes-go/hermes/llm"
)

// Loop limits of one turn.
const (
	maxLengthContinuations = 3
	maxTruncatedToolRetry  = 3
	maxEmptyRetries        = 3
	maxCompressionsPerTurn = 3
)

// Texts the loop sends to the model.
const (
	continuationPrompt   = "[System: Your previous response was truncated by the output length limit. Continue exactly where you left off. Do not restart or repeat prior text. Finish the answer directly.]"
	emptyAfterToolsNudge = "You just executed tool calls but returned an empty response. Please process the tool results above and continue with the task."
	maxIterationsPrompt  = "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response summarizing what you've found and accomplished so far, without calling any more tools."
)

// turn is the state of one Run.
type turn struct {
	a      *Agent
	ctx    context.Context
	res    *Result
	budget *IterationBudget
	taskID string

	// scaffold holds messages sent after the history on the next call
	// only (continuation prompts, empty-response nudges). They never enter
	// the history or the store.
	scaffold     []llm.Message
	fragments    []string // text of length-truncated answers, in order
	lengthRetry  int
	truncRetry   int
	emptyRetry   int
	nudged       bool
	compressions int
	guard        guardrail
	done         bool
	tools        []llm.ToolDef // offered this turn
	// imagesOmitted is set once the turn told that the model gets
	// placeholders for the history's images.
	imagesOmitted bool
	toolsGen      uint64 // the registry generation tools was read at
	// pending is what waits for the next stored message (PendingStore).
	pending llm.PendingWrites
}

// end is the one way a turn ends: its exit reason, the text the caller
// reads (the answer, a summary, or what went wrong; "" keeps the answer
// already set), and, for a turn that did not complete, why. The Result's
// flags follow from the exit reason (see outcome).
func (t *turn) end(exit ExitReason, final string, err error) {
	r := t.res
	r.ExitReason = exit
	if final != "" {
		r.FinalResponse = final
	}
	if err == nil && exit != ExitText {
		err = errors.New(string(exit))
	}
	r.Error = err
	r.Completed, r.Interrupted, r.Partial, r.Failed = exit.outcome()
	r.CompressionExhausted = exit == ExitCompressionExhausted
	t.scaffold = nil
	t.done = true
}

// outcome maps an exit reason to the Result's flags: a text answer
// completes the turn; an interrupt interrupts it; an answer cut by the
// output limit or by the iteration budget is partial; anything else failed.
func (e ExitReason) outcome() (completed, interrupted, partial, failed bool) {
	switch e {
	case ExitText:
		return true, false, false, false
	case ExitInterrupted, ExitInterruptedDuringAPI:
		return false, true, false, false
	case ExitLength, ExitMaxIterations:
		return false, false, true, false
	}
	return false, false, false, true
}

// Run runs one turn. Its error is non-nil only when the turn could not
// start (ErrBusy, a bad Input); everything that happens once it started is
// in the Result. The turn's last event is EventDone; Run returns after the
// observer has received it.
func (a *Agent) Run(ctx context.Context, in Input) (*Result, error) {
	return a.run(ctx, in, nil)
}

// run is Run with stream receiving the turn's events besides the observer.
func (a *Agent) run(ctx context.Context, in Input, stream Observer) (*Result, error) {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return nil, ErrBusy
	}
	if len(a.attached) > 0 {
		in.Images = append(append([]llm.Image(nil), a.attached...), in.Images...)
	}
	if len(in.Images) > 0 {
		model, _ := a.modelLocked()
		if a.nextModel != nil {
			model = a.nextModel.Model // the model this turn will call
		}
		if !a.acceptsImages(model) {
			a.mu.Unlock()
			return nil, fmt.Errorf("agent: %w: %s cannot see the %d image(s) attached; use a vision model, or set model.vision: true if it has vision", ErrNoVision, model, len(in.Images))
		}
	}
	if in.Message == "" && len(in.Images) == 0 {
		h := a.history
		if in.History != nil {
			h = in.History
		}
		if len(h) == 0 || h[len(h)-1].Role != llm.RoleTool {
			a.mu.Unlock()
			return nil, errors.New("agent: empty message: only a history that ends in a tool result can be continued")
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a.running, a.interrupt, a.stream = true, cancel, stream
	a.steerable, a.steered = true, nil
	a.attached = nil // they are on this turn's message now
	a.applyNextModel()
	if in.History != nil {
		a.history = llm.CloneMessages(in.History)
	}
	a.mu.Unlock()
	defer func() {
		cancel(nil)
		a.events.flush()
		a.mu.Lock()
		a.running, a.interrupt, a.stream = false, nil, nil
		a.mu.Unlock()
	}()

	t := &turn{
		a:      a,
		ctx:    ctx,
		budget: NewIterationBudget(a.cfg.MaxIterations),
		taskID: in.TaskID,
		res:    &Result{SessionID: a.SessionID()},
		guard:  guardrail{warnAfter: a.cfg.GuardrailWarnAfter, haltAfter: a.cfg.GuardrailHaltAfter},
	}
	if t.taskID == "" {
		t.taskID = uuid.NewString()
	}
	t.res.TaskID = t.taskID
	t.prologue(in)
	t.loop()
	t.epilogue()
	a.emit(Event{Kind: EventDone, Result: t.res})
	return t.res, nil
}

// prologue: the user message and the system prompt (steps 1-3).
func (t *turn) prologue(in Input) {
	a := t.a
	a.resetTurnRouting()
	t.ensureSystemPrompt(in.SystemMessage)
	if a.cfg.ToolsReady != nil {
		a.cfg.ToolsReady(t.ctx)
	}
	if in.Message != "" || len(in.Images) > 0 {
		// A turn that was interrupted, or a process that died, may have
		// left the history open: close it first.
		t.closeDangling()
		t.appendMsg(llm.Message{Role: llm.RoleUser, Content: in.Message, Images: append([]llm.Image(nil), in.Images...), Time: a.cfg.Now()})
	}
}

// ensureSystemPrompt records the session (once) and builds its system
// prompt when it has none. The prompt names the primary model; a router
// rewrites it for a fallback.
func (t *turn) ensureSystemPrompt(override string) {
	a := t.a
	a.mu.Lock()
	ready, sess, prompt := a.sessionReady, a.session, a.systemPrompt
	a.sessionReady = true
	a.mu.Unlock()
	_, deferred := a.cfg.Store.(PendingStore)
	if !ready && a.cfg.Store != nil {
		if sess.Model == "" {
			sess.Model, sess.Provider = a.cfg.Model, a.cfg.Provider
		}
		if deferred {
			t.pending.Session = &sess
		} else if err := a.cfg.Store.EnsureSession(t.ctx, sess); err != nil {
			t.warn(fmt.Sprintf("session store: %v", err))
		}
	}
	if prompt != "" {
		return
	}
	p := override
	if p == "" && a.cfg.SystemPrompt != nil {
		var err error
		if p, err = a.cfg.SystemPrompt(t.ctx, a.cfg.Model, a.cfg.Provider); err != nil {
			t.warn(fmt.Sprintf("system prompt: %v", err))
		}
	}
	if a.cfg.Redact != nil {
		p = a.cfg.Redact(p) // a context file or a memory may hold a secret
	}
	a.mu.Lock()
	a.systemPrompt = p
	a.mu.Unlock()
	switch {
	case p == "" || a.cfg.Store == nil:
	case deferred:
		t.pending.SystemPrompt = p
	default:
		if err := a.cfg.Store.SetSystemPrompt(t.ctx, sess.ID, p); err != nil {
			t.warn(fmt.Sprintf("session store: %v", err))
		}
	}
}

// loop runs iterations until a final answer or another end (steps 4-9).
func (t *turn) loop() {
	for !t.done {
		if t.interrupted() {
			t.end(ExitInterrupted, "Operation interrupted.", nil)
			return
		}
		if !t.budget.Consume() {
			t.maxIterations()
			return
		}
		t.res.APICalls++
		t.a.emit(Event{Kind: EventStep, Step: t.res.APICalls})

		req := t.buildRequest(true)
		if t.preflightCompress(req) {
			t.ensureSystemPrompt("")
			req = t.buildRequest(true)
		}
		resp, err := t.call(req)
		if err != nil {
			t.handleCallError(err)
			continue
		}
		t.handleResponse(resp)
	}
}

// buildRequest builds the API copy (steps 5-7): system prompt, history,
// scaffold, repaired; the budget pressure on the newest tool result.
func (t *turn) buildRequest(withTools bool) *llm.Request {
	a := t.a
	a.mu.Lock()
	msgs := make([]llm.Message, 0, len(a.history)+len(t.scaffold)+1)
	if a.systemPrompt != "" {
		msgs = append(msgs, llm.System(a.systemPrompt))
	}
	msgs = append(msgs, a.history...)
	sessionID := a.session.ID
	a.mu.Unlock()
	msgs = append(msgs, t.scaffold...)
	api, repairs := llm.Sanitize(msgs)
	if a.cfg.Redact != nil {
		// A secret the user pasted does not leave for the provider either.
		// Tool results and the system prompt were masked once already.
		for i := range api {
			if r := api[i].Role; r != llm.RoleTool && r != llm.RoleSystem {
				api[i].Content = a.cfg.Redact(api[i].Content)
			}
		}
	}
	if llm.HasImages(api) {
		if model, _ := a.Model(); !a.acceptsImages(model) {
			// A fallback or a resumed session on a model without vision:
			// it reads what the images were instead of failing with a 400.
			api = llm.WithoutImages(api)
			if !t.imagesOmitted {
				t.imagesOmitted = true
				a.emit(Event{Kind: EventStatus, Text: fmt.Sprintf("%s cannot see images: the images in the conversation are sent as placeholders", model)})
			}
		}
	}
	if repairs.Total() > 0 {
		a.emit(Event{Kind: EventRepair, Repairs: repairs, Text: fmt.Sprintf("repaired %d message-sequence problem(s) before the call", repairs.Total())})
	}
	if withTools && a.budgetWarnings() && len(api) > 0 && api[len(api)-1].Role == llm.RoleTool {
		if text, _ := t.budget.Pressure(); text != "" {
			last := &api[len(api)-1]
			last.Content = strings.TrimRight(last.Content, "\n") + "\n\n" + text
			a.emit(Event{Kind: EventBudgetWarning, Text: text, Step: t.budget.Used()})
		}
	}
	req := &llm.Request{
		Model:           a.cfg.Model, // a router puts its active endpoint's model
		Messages:        api,
		MaxTokens:       a.cfg.MaxTokens,
		ReasoningEffort: a.cfg.ReasoningEffort,
		Cache:           a.cfg.Cache,
		SessionID:       sessionID,
	}
	if withTools {
		if gen := a.cfg.Tools.Generation(); t.tools == nil || gen != t.toolsGen {
			// Availability is checked once per turn, not on every call,
			// unless the registry changed (an MCP server joined).
			t.tools, t.toolsGen = a.toolDefs(), gen
		}
		req.Tools = t.tools
	}
	return req
}

func (a *Agent) budgetWarnings() bool {
	return a.cfg.BudgetWarnings == nil || *a.cfg.BudgetWarnings
}

// handleResponse is step 9: run tools and loop, or finish.
func (t *turn) handleResponse(resp *llm.Response) {
	a := t.a
	t.addUsage(resp.Usage)
	msg := resp.Message
	msg.Role = llm.RoleAssistant
	msg.FinishReason = resp.FinishReason
	msg.Time = a.cfg.Now()

	switch resp.FinishReason {
	case llm.FinishStop, llm.FinishToolCalls, llm.FinishLength, "":
	case llm.FinishContentFilter:
		t.contentFiltered(resp)
		return
	default:
		// A reason the loop does not know is never taken for an answer.
		err := fmt.Errorf("the model's reply ended with finish reason %q, which hermes does not know", resp.FinishReason)
		t.end(ExitInvalidResponse, "The model call failed: "+err.Error(), err)
		return
	}
	if len(msg.ToolCalls) > 0 {
		if resp.FinishReason == llm.FinishLength && hasInvalidArgs(msg.ToolCalls) {
			t.truncatedToolCall()
			return
		}
		t.truncRetry, t.emptyRetry, t.nudged = 0, 0, false
		t.scaffold = nil
		t.runTools(msg)
		return
	}
	if resp.FinishReason == llm.FinishLength && strings.TrimSpace(msg.Content) != "" {
		t.lengthCut(msg)
		return
	}
	if strings.TrimSpace(msg.Content) == "" && len(t.fragments) == 0 {
		t.emptyResponse(msg)
		return
	}
	t.finalAnswer(msg, ExitText, nil)
}

// finalAnswer appends the answer (with any truncated fragments before it)
// and ends the turn. Transports keep the text as the model sent it, so
// fragments join at the exact boundary; the joined answer is trimmed.
func (t *turn) finalAnswer(msg llm.Message, exit ExitReason, err error) {
	if len(t.fragments) > 0 {
		msg.Content = strings.Join(t.fragments, "") + msg.Content
		t.fragments = nil
	}
	msg.Content = strings.TrimSpace(msg.Content)
	msg.ToolCalls = nil
	t.appendMsg(msg)
	t.res.FinalResponse = msg.Content
	t.res.LastReasoning = msg.Reasoning
	t.end(exit, "", err)
}

func (t *turn) lengthCut(msg llm.Message) {
	t.fragments = append(t.fragments, msg.Content)
	if t.lengthRetry >= maxLengthContinuations {
		msg.Content = ""
		t.finalAnswer(msg, ExitLength, fmt.Errorf("response remained truncated after %d continuation attempts", maxLengthContinuations))
		return
	}
	t.lengthRetry++
	t.scaffold = append(t.scaffold, llm.Assistant(msg.Content), llm.User(continuationPrompt))
	t.a.emit(Event{Kind: EventStatus, Text: fmt.Sprintf("response cut by the output limit; asking the model to continue (%d/%d)", t.lengthRetry, maxLengthContinuations)})
	t.budget.Refund()
}

func (t *turn) truncatedToolCall() {
	if t.truncRetry >= maxTruncatedToolRetry {
		t.end(ExitLength, "", errors.New("response truncated due to output length limit: the tool call's arguments were cut off and it was not run"))
		return
	}
	t.truncRetry++
	t.a.emit(Event{Kind: EventStatus, Text: fmt.Sprintf("tool call arguments were cut off by the output limit; retrying (%d/%d)", t.truncRetry, maxTruncatedToolRetry)})
}

func (t *turn) emptyResponse(msg llm.Message) {
	a := t.a
	lastIsTool := false
	a.mu.Lock()
	if n := len(a.history); n > 0 && a.history[n-1].Role == llm.RoleTool {
		lastIsTool = true
	}
	a.mu.Unlock()
	switch {
	case lastIsTool && !t.nudged:
		t.nudged = true
		t.scaffold = append(t.scaffold, llm.Assistant("(empty)"), llm.User(emptyAfterToolsNudge))
		a.emit(Event{Kind: EventStatus, Text: "empty response after tool results; nudging the model to continue"})
	case t.emptyRetry < maxEmptyRetries:
		t.emptyRetry++
		a.emit(Event{Kind: EventStatus, Text: fmt.Sprintf("empty response; retrying (%d/%d)", t.emptyRetry, maxEmptyRetries)})
	default:
		t.end(ExitEmptyResponse, "(empty)", fmt.Errorf("the model returned empty responses %d times in a row", maxEmptyRetries+1))
	}
}

func (t *turn) contentFiltered(resp *llm.Response) {
	why := resp.Refusal
	if why == "" {
		why = strings.TrimSpace(resp.Message.Content)
	}
	if why == "" {
		why = "no explanation given"
	}
	t.end(ExitContentFilter, "The model declined to respond to this request (safety refusal, not a Hermes failure).\n\nModel's explanation: "+why+
		"\n\nTry rephrasing the request, narrowing the context, or adding a fallback provider.", fmt.Errorf("content_policy_blocked: %s", why))
}

// maxIterations is the 100% budget path: one call without tools asking
// for a summary of the work done. The turn is partial either way; without
// the summary, FinalResponse says why it is missing.
func (t *turn) maxIterations() {
	a := t.a
	exhausted := fmt.Errorf("iteration budget of %d exhausted", t.budget.Max())
	a.emit(Event{Kind: EventBudgetWarning, Text: fmt.Sprintf("iteration budget of %d used up; asking for a summary", t.budget.Max())})
	t.scaffold = append(t.scaffold, llm.User(maxIterationsPrompt))
	req := t.buildRequest(false)
	t.res.APICalls++
	resp, err := t.call(req)
	t.scaffold = nil
	switch {
	case errors.Is(err, errTurnOver): // interrupted: call ended the turn
	case err != nil:
		t.end(ExitMaxIterations, "", fmt.Errorf("%w; the summary call failed: %w", exhausted, err))
	default:
		t.addUsage(resp.Usage)
		msg := resp.Message
		msg.Role, msg.Time, msg.FinishReason = llm.RoleAssistant, a.cfg.Now(), resp.FinishReason
		t.finalAnswer(msg, ExitMaxIterations, exhausted)
	}
}

func (t *turn) interrupted() bool { return t.ctx.Err() != nil }

// epilogue fills the Result and runs the end-of-turn hook.
func (t *turn) epilogue() {
	a := t.a
	r := t.res
	r.PendingSteer = a.closeSteering()
	if r.Interrupted {
		t.closeDangling()
	}
	t.flushPending()
	a.mu.Lock()
	a.lastFailure = ""
	if r.Failed {
		// Nothing is stored for a failed turn; the next prompt closes it.
		a.lastFailure = r.ExitReason
	}
	a.mu.Unlock()
	r.Messages = a.History()
	r.Model, r.Provider = a.Model()
	r.SessionID = a.SessionID()
	if a.cfg.OnTurnEnd != nil {
		if err := a.cfg.OnTurnEnd(context.WithoutCancel(t.ctx), r); err != nil {
			t.warn(fmt.Sprintf("end of turn: %v", err))
		}
	}
}

// appendMsg adds a message to the history and persists it at once.
func (t *turn) appendMsg(m llm.Message) {
	a := t.a
	a.mu.Lock()
	a.history = append(a.history, m)
	a.mu.Unlock()
	if m.Role == llm.RoleAssistant {
		mc := m.Clone()
		a.emit(Event{Kind: EventAssistant, Message: &mc})
	}
	if a.cfg.Store == nil {
		return
	}
	ctx := context.WithoutCancel(t.ctx)
	if ps, ok := a.cfg.Store.(PendingStore); ok {
		if err := ps.AppendMessageWith(ctx, a.SessionID(), m, t.pending); err != nil {
			t.warn(fmt.Sprintf("session store: saving %s message: %v", m.Role, err))
			return // what was pending stays so, for the next message
		}
		t.pending = llm.PendingWrites{}
		return
	}
	if err := a.cfg.Store.AppendMessage(ctx, a.SessionID(), m); err != nil {
		t.warn(fmt.Sprintf("session store: saving %s message: %v", m.Role, err))
	}
}

func (t *turn) addUsage(u llm.Usage) {
	t.res.Usage = t.res.Usage.Add(u)
	s := t.a.cfg.Store
	if s == nil {
		return
	}
	if _, ok := s.(PendingStore); ok {
		t.pending.Usage = t.pending.Usage.Add(u)
		t.pending.APICalls++
		return
	}
	if err := s.AddUsage(context.WithoutCancel(t.ctx), t.a.SessionID(), u, 1); err != nil {
		t.warn(fmt.Sprintf("session store: saving usage: %v", err))
	}
}

// flushPending writes what waits for a message that has not come: at the
// end of a turn, and before a compression moves the turn to another
// session.
func (t *turn) flushPending() {
	p, s := t.pending, t.a.cfg.Store
	if p.Empty() || s == nil {
		return
	}
	t.pending = llm.PendingWrites{}
	ctx, id := context.WithoutCancel(t.ctx), t.a.SessionID()
	if p.Session != nil {
		if err := s.EnsureSession(ctx, *p.Session); err != nil {
			t.warn(fmt.Sprintf("session store: %v", err))
		}
	}
	if p.SystemPrompt != "" {
		if err := s.SetSystemPrompt(ctx, id, p.SystemPrompt); err != nil {
			t.warn(fmt.Sprintf("session store: %v", err))
		}
	}
	if p.APICalls > 0 {
		if err := s.AddUsage(ctx, id, p.Usage, p.APICalls); err != nil {
			t.warn(fmt.Sprintf("session store: saving usage: %v", err))
		}
	}
}

func (t *turn) warn(s string) {
	t.res.Warnings = append(t.res.Warnings, s)
	t.a.emit(Event{Kind: EventWarning, Text: s})
}

func hasInvalidArgs(calls []llm.ToolCall) bool {
	for _, c := range calls {
		a := strings.TrimSpace(c.Arguments)
		if a != "" && !jsonValid(a) {
			return true
		}
	}
	return false
}
