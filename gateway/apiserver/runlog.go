package apiserver

import (
	"cmp"
	"context"
	"encoding/json"
	"github.com/hermes-go/hermes/tool/approval"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Run statuses.
const (
	runQueued    = "queued"
	runRunning   = "running"
	runCompleted = "completed"
	runFailed    = "failed"
	runCancelled = "cancelled"
	// runRequiresAction is a running run waiting on its client to answer
	// an approval; it is shown, never stored.
	runRequiresAction = "requires_action"
)

// Bounds of what the server remembers of runs.
const (
	// DefaultRunRetention is how long a finished run stays readable.
	DefaultRunRetention = time.Hour
	// DefaultMaxRetainedRuns is how many finished runs stay readable.
	DefaultMaxRetainedRuns = 1000
	// maxRetainedBytes bounds the events and outputs of all finished
	// runs together; the oldest go first.
	maxRetainedBytes = 64 << 20
	// maxDeltaBytes bounds one run's stored text and reasoning deltas;
	// past it they are dropped (the record says so), lifecycle and tool
	// events are kept, and the final output stays whole.
	maxDeltaBytes = 256 << 10
)

// run is one run's record: its state and its ordered event log. Every
// subscriber reads the same log, so all see the same events in the same
// order and a slow one never holds up the run.
type run struct {
	id           string
	idemKey      string
	bodyHash     [32]byte
	model        string
	instructions string
	created      time.Time
	// askClient: commands needing approval are asked of the client
	// ("approvals": "client") instead of denied.
	askClient bool
	seq       uint64 // registration order, for listing
	// hook describes a run a webhook delivery started (nil for others);
	// its delivery outcome changes under mu.
	hook *webhookRun

	mu        sync.Mutex
	status    string
	sessionID string
	started   time.Time
	finished  time.Time
	output    string
	finish    string
	usage     *llm.Usage
	errCode   string
	errText   string
	events    []runEvent // sequence_number = index
	deltas    int        // bytes of stored deltas
	bytes     int        // bytes of events and output
	dropped   int        // deltas dropped past maxDeltaBytes
	deltaCap  int
	wake      chan struct{} // closed and replaced on every change
	stopping  bool
	accepted  bool   // answered 202: a repeated Idempotency-Key gets it
	interrupt func() // stops the turn (set once it runs)
	ended     chan struct{}
	pending   []*pendingApproval // asked, not yet answered, oldest first
	answered  map[string]string  // approval id -> how it was resolved
}

// runEvent is one event of a run's log: its type and its marshalled data.
type runEvent struct {
	typ  string
	data []byte
}

func newRun(id, model string, now time.Time) *run {
	return &run{id: id, model: model, created: now, status: runQueued, wake: make(chan struct{}),
		ended: make(chan struct{}), deltaCap: maxDeltaBytes}
}

// changed wakes the subscribers; r.mu is held.
func (r *run) changed() {
	close(r.wake)
	r.wake = make(chan struct{})
}

// append adds an event to the log, unless it is a delta past the cap.
func (r *run) append(typ string, fields map[string]any, delta bool, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendLocked(typ, fields, delta, at)
}

// appendLocked is append with r.mu held.
func (r *run) appendLocked(typ string, fields map[string]any, delta bool, at time.Time) {
	if r.isFinished() {
		return
	}
	fields["type"] = typ
	fields["run_id"] = r.id
	fields["sequence_number"] = len(r.events)
	fields["created_at"] = float64(at.UnixMilli()) / 1000
	b, err := json.Marshal(fields)
	if err != nil {
		return
	}
	if delta {
		if r.deltas+len(b) > r.deltaCap {
			r.dropped++
			return
		}
		r.deltas += len(b)
	}
	r.events = append(r.events, runEvent{typ, b})
	r.bytes += len(b)
	r.changed()
}

func (r *run) isFinished() bool {
	return r.status == runCompleted || r.status == runFailed || r.status == runCancelled
}

// setRunning marks the turn started; stop interrupts it from now on.
func (r *run) setRunning(sessionID string, interrupt func(), at time.Time) (stopNow bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.sessionID, r.started, r.interrupt = runRunning, sessionID, at, interrupt
	r.changed()
	return r.stopping
}

// end records the outcome and its final event, then lets every
// subscriber finish.
func (r *run) end(status, output, finish string, usage *llm.Usage, code, text string, at time.Time) {
	fields := map[string]any{"status": status}
	switch status {
	case runCompleted:
		fields["output"] = output
		fields["finish_reason"] = finish
	default:
		fields["error"] = map[string]any{"code": code, "message": text}
		if output != "" {
			fields["output"] = output
		}
	}
	if usage != nil {
		fields["usage"] = runUsage(usage)
	}
	// The final event and the record's outcome change together, so a
	// client that reads the run on that event finds it ended.
	r.mu.Lock()
	// A question the turn left behind (the turn ended without waiting
	// for its approver) is denied first, so its resolution comes before
	// the final event.
	for _, p := range r.pending {
		if r.answered == nil {
			r.answered = map[string]string{}
		}
		r.answered[p.id] = approval.Deny.String()
		select {
		case p.answer <- approval.Deny:
		default:
		}
		r.appendLocked("approval.resolved", map[string]any{"approval_id": p.id, "choice": approval.Deny.String(),
			"resolved_by": resolvedByCancelled, "command": p.prompt.Command}, false, at)
	}
	r.pending = nil
	r.appendLocked("run."+status, fields, false, at)
	r.status, r.output, r.finish, r.usage, r.errCode, r.errText, r.finished = status, output, finish, usage, code, text, at
	r.bytes += len(output)
	r.interrupt = nil
	r.changed()
	r.mu.Unlock()
	close(r.ended)
}

// stop asks the run to end; it reports false when the run had ended.
func (r *run) stop() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.isFinished() {
		return false
	}
	r.stopping = true
	if r.interrupt != nil {
		r.interrupt()
	}
	return true
}

// body is the run object the API returns.
func (r *run) body() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	status := r.status
	var action any
	if len(r.pending) > 0 && status == runRunning {
		status = runRequiresAction
		list := make([]map[string]any, len(r.pending))
		for i, p := range r.pending {
			list[i] = p.fields()
		}
		action = map[string]any{"type": "approval", "approvals": list}
	}
	b := map[string]any{
		"id": r.id, "object": "run", "status": status, "model": r.model,
		"approvals": r.approvalsMode(), "required_action": action,
		"created_at": r.created.Unix(), "started_at": unixOrNil(r.started), "completed_at": unixOrNil(r.finished),
		"session_id": nilIfEmpty(r.sessionID), "instructions": nilIfEmpty(r.instructions),
		"output": nil, "finish_reason": nil, "usage": nil, "error": nil,
		"event_count": len(r.events), "events_truncated": r.dropped > 0, "dropped_events": r.dropped,
	}
	if r.isFinished() {
		b["output"] = r.output
	}
	if r.finish != "" {
		b["finish_reason"] = r.finish
	}
	if r.usage != nil {
		b["usage"] = runUsage(r.usage)
	}
	if r.errText != "" {
		b["error"] = map[string]any{"code": r.errCode, "message": r.errText}
	}
	if r.hook != nil {
		b["webhook"] = r.hook.fields()
	}
	return b
}

// next returns the events from index from on, whether the run has
// ended (so none will follow them), and a channel closed at the next
// change.
func (r *run) next(from int) (events []runEvent, ended bool, wake <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from < len(r.events) {
		events = r.events[from:len(r.events):len(r.events)]
	}
	return events, r.isFinished(), r.wake
}

func runUsage(u *llm.Usage) map[string]any {
	return map[string]any{
		"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

func unixOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Unix()
}

// runRegistry holds the runs the server remembers: every active one,
// and finished ones for a bounded time, count and size (oldest first).
// Idempotency keys are remembered as long as their run.
type runRegistry struct {
	now      func() time.Time
	ttl      time.Duration
	maxRuns  int
	maxBytes int

	mu       sync.Mutex
	runs     map[string]*run
	seq      uint64 // runs added so far
	keys     map[string]*run
	finished []*run // in the order they finished
	retained int    // bytes of the finished runs
	active   sync.WaitGroup
}

func newRunRegistry(ttl time.Duration, maxRuns int) *runRegistry {
	if ttl <= 0 {
		ttl = DefaultRunRetention
	}
	if maxRuns <= 0 {
		maxRuns = DefaultMaxRetainedRuns
	}
	return &runRegistry{now: time.Now, ttl: ttl, maxRuns: maxRuns, maxBytes: maxRetainedBytes,
		runs: map[string]*run{}, keys: map[string]*run{}}
}

// add registers a new run under its idempotency key, or returns the run
// the key already names (existing non-nil, r not added).
func (g *runRegistry) add(r *run) (existing *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweep()
	if r.idemKey != "" {
		if e := g.keys[r.idemKey]; e != nil {
			return e
		}
		g.keys[r.idemKey] = r
	}
	g.seq++
	r.seq = g.seq
	g.runs[r.id] = r
	g.active.Add(1)
	return nil
}

// remove forgets a run that never started.
func (g *runRegistry) remove(r *run) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.runs, r.id)
	if r.idemKey != "" && g.keys[r.idemKey] == r {
		delete(g.keys, r.idemKey)
	}
	g.active.Done()
}

// ended moves a run to the finished ones, evicting past the bounds.
func (g *runRegistry) ended(r *run) {
	r.mu.Lock()
	size := r.bytes
	r.mu.Unlock()
	g.mu.Lock()
	g.finished = append(g.finished, r)
	g.retained += size
	g.sweep()
	g.mu.Unlock()
	g.active.Done()
}

func (g *runRegistry) get(id string) *run {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweep()
	return g.runs[id]
}

// counts reports the active runs and the finished ones remembered.
func (g *runRegistry) counts() (active, retained int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sweep()
	for _, r := range g.runs {
		r.mu.Lock()
		if r.isFinished() {
			retained++
		} else {
			active++
		}
		r.mu.Unlock()
	}
	return active, retained
}

// sweep evicts the oldest finished runs past the bounds; g.mu is held.
func (g *runRegistry) sweep() {
	cutoff := g.now().Add(-g.ttl)
	for len(g.finished) > 0 {
		old := g.finished[0]
		old.mu.Lock()
		at, size := old.finished, old.bytes
		old.mu.Unlock()
		if len(g.finished) <= g.maxRuns && g.retained <= g.maxBytes && at.After(cutoff) {
			return
		}
		g.finished[0] = nil
		g.finished = g.finished[1:]
		g.retained -= size
		delete(g.runs, old.id)
		if old.idemKey != "" && g.keys[old.idemKey] == old {
			delete(g.keys, old.idemKey)
		}
	}
}

// stopAll interrupts every active run and waits, until ctx ends, for
// them to finish.
func (g *runRegistry) stopAll(ctx context.Context) {
	g.mu.Lock()
	for _, r := range g.runs {
		r.stop()
	}
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.active.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// list returns the remembered runs a client started, newest first: at
// most limit of those older than the run after names (empty: from the
// newest), and whether more follow. found is false when after names no
// remembered run.
func (g *runRegistry) list(after string, limit int) (page []*run, more, found bool) {
	g.mu.Lock()
	g.sweep()
	var cursor uint64 = math.MaxUint64
	if after != "" {
		a := g.runs[after]
		if a == nil {
			g.mu.Unlock()
			return nil, false, false
		}
		cursor = a.seq
	}
	all := make([]*run, 0, len(g.runs))
	for _, r := range g.runs {
		if r.seq < cursor {
			all = append(all, r)
		}
	}
	g.mu.Unlock()
	all = slices.DeleteFunc(all, func(r *run) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return !r.accepted // still being created, or refused
	})
	slices.SortFunc(all, func(a, b *run) int { return cmp.Compare(b.seq, a.seq) })
	if len(all) > limit {
		return all[:limit], true, true
	}
	return all, false, true
}
