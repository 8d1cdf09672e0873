package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of the executor.
const (
	DefaultPoolSize       = 128
	DefaultTimeout        = 420 * time.Second
	DefaultMaxResultChars = 100_000
	maxErrorChars         = 2048
)

// Outcome is the result of one call of a batch.
type Outcome struct {
	Call     Call
	Result   Result
	Status   Status
	Duration time.Duration
	// SpillPath names the file holding the full output when it was cut.
	SpillPath string
}

// Executor runs batches of tool calls. Configure it before the first
// Execute; SetPoolSize may be called at any time.
type Executor struct {
	// Resolve finds a tool by name. Agent-level tools are resolved here
	// before the registry. Required.
	Resolve func(name string) (Tool, bool)
	// Names lists the tools the model may call, for the unknown-tool message.
	Names func() []string

	Pre      []PreHook
	Post     []PostHook
	Approver Approver

	// Timeout is the deadline of one call unless its Spec says otherwise.
	Timeout time.Duration
	// MaxResultChars caps a result; longer output is cut and spilled.
	MaxResultChars int
	// SpillDir receives full outputs past the cap (default: os.TempDir()/hermes-tool-output).
	SpillDir string
	// Redact masks secrets in results before the model sees them.
	Redact func(string) string
	// Now is the clock of call durations (default time.Now).
	Now func() time.Time

	// OnStart and OnFinish observe calls; they run on the call's goroutine.
	OnStart  func(Call)
	OnFinish func(Outcome)

	once sync.Once
	pool *pool
}

// SetPoolSize sets how many calls of a batch may run at once (default
// 128). Safe while batches run.
func (e *Executor) SetPoolSize(n int) {
	e.init()
	e.pool.resize(n)
}

// PoolSize returns the current pool size.
func (e *Executor) PoolSize() int {
	e.init()
	s, _ := e.pool.stats()
	return s
}

func (e *Executor) init() {
	e.once.Do(func() {
		if e.pool == nil {
			e.pool = newPool(DefaultPoolSize)
		}
	})
}

// prepared is a call after resolution and argument checks.
type prepared struct {
	call   Call
	tool   Tool
	spec   Spec
	class  Class
	paths  []string
	writes bool
	// early is set when the call must not run; it is the result to report.
	early *Outcome
	// quiet calls (a running tool's, through Run) are not reported to
	// OnStart and OnFinish.
	quiet bool
}

// Execute runs calls and returns one Outcome per call, in call order.
// A single call runs on the calling goroutine; several run on the pool as
// their classes allow. When ctx is cancelled, calls not yet started are
// reported as cancelled and running ones are abandoned.
func (e *Executor) Execute(ctx context.Context, calls []Call) []Outcome {
	return e.ExecuteEach(ctx, calls, nil)
}

// ExecuteEach is Execute that also reports each outcome as soon as its
// call ends, with the call's index in the batch. each may be called from
// several goroutines at once.
func (e *Executor) ExecuteEach(ctx context.Context, calls []Call, each func(i int, o Outcome)) []Outcome {
	e.init()
	out := make([]Outcome, len(calls))
	preps := make([]*prepared, len(calls))
	for i, c := range calls {
		preps[i] = e.prepare(c)
	}
	for _, seg := range plan(preps) {
		if !seg.parallel {
			for _, i := range seg.idx {
				out[i] = e.runPrepared(ctx, preps[i])
				if each != nil {
					each(i, out[i])
				}
			}
			continue
		}
		var wg sync.WaitGroup
		for _, i := range seg.idx {
			if preps[i].early != nil {
				out[i] = e.runPrepared(ctx, preps[i])
				if each != nil {
					each(i, out[i])
				}
				continue
			}
			if err := e.pool.acquire(ctx); err != nil {
				out[i] = e.cancelled(preps[i], err)
				if each != nil {
					each(i, out[i])
				}
				continue
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				o := e.runPrepared(ctx, preps[i])
				e.pool.release()
				out[i] = o
				if each != nil {
					each(i, o)
				}
			}(i)
		}
		wg.Wait()
	}
	return out
}

func (e *Executor) prepare(c Call) *prepared {
	p := &prepared{call: c}
	t, ok := e.Resolve(c.Name)
	if !ok || t == nil {
		p.early = &Outcome{Call: c, Status: StatusError, Result: Error(e.unknownToolText(c.Name))}
		return p
	}
	p.tool, p.spec = t, t.Spec()
	p.class = p.spec.Class
	args := strings.TrimSpace(string(c.Args))
	if args == "" {
		args = "{}"
	}
	p.call.Args = json.RawMessage(args)
	var obj map[string]any
	if err := json.Unmarshal(p.call.Args, &obj); err != nil {
		p.early = &Outcome{Call: p.call, Status: StatusError, Result: Error(fmt.Sprintf(
			"Error: Invalid JSON arguments for %s: %v. Arguments must be a JSON object; for tools with no required parameters, use an empty object: {}. Please retry with valid JSON.",
			c.Name, err))}
		return p
	}
	if msg := e.validate(p.spec, obj); msg != "" {
		p.early = &Outcome{Call: p.call, Status: StatusError, Result: Error(fmt.Sprintf(
			"Error: arguments for %s do not match its schema:\n%s\nThe tool was not run. Fix the arguments and retry.", c.Name, msg))}
		return p
	}
	if p.class == PathScoped {
		if p.spec.Paths == nil {
			p.class = Sequential
		} else {
			p.paths, p.writes = p.spec.Paths(p.call.Args)
		}
	}
	return p
}

func (e *Executor) unknownToolText(name string) string {
	if strings.TrimSpace(name) == "" {
		return "Tool call rejected: the tool name was empty. To call a tool, use a valid name from your tool list; otherwise reply in plain text."
	}
	var names []string
	if e.Names != nil {
		names = e.Names()
	}
	sort.Strings(names)
	return fmt.Sprintf("Tool '%s' does not exist. Available tools: %s", truncate(name, 80), strings.Join(names, ", "))
}

func (e *Executor) cancelled(p *prepared, err error) Outcome {
	return Outcome{Call: p.call, Status: StatusCancelled,
		Result: Error(fmt.Sprintf("[Tool execution cancelled — %s was not run: %v]", p.call.Name, err))}
}

// runPrepared runs the per-call pipeline: pre hooks, approval, the tool,
// post hooks, redaction and the size cap.
func (e *Executor) runPrepared(ctx context.Context, p *prepared) Outcome {
	now := e.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	var o Outcome
	if p.early != nil {
		o = *p.early
	} else if err := ctx.Err(); err != nil {
		o = e.cancelled(p, err)
	} else {
		if e.OnStart != nil && !p.quiet {
			e.OnStart(p.call)
		}
		o = e.pipeline(ctx, p)
	}
	o.Duration = now().Sub(start)
	for _, h := range e.Post {
		h(ctx, o.Call, &o.Result, o.Status, o.Duration)
	}
	if e.Redact != nil {
		o.Result.Content = e.Redact(o.Result.Content)
	}
	e.capResult(p, &o)
	if e.OnFinish != nil && !p.quiet {
		e.OnFinish(o)
	}
	return o
}

func (e *Executor) pipeline(ctx context.Context, p *prepared) Outcome {
	call := p.call
	for _, h := range e.Pre {
		block, err := h(ctx, &call)
		if err != nil && block == "" {
			block = "pre_tool_call hook failed: " + err.Error()
		}
		if block != "" {
			return Outcome{Call: call, Status: StatusBlocked, Result: Error("Blocked: " + block)}
		}
	}
	if cmdr, ok := p.tool.(Commander); ok && e.Approver != nil {
		if cmd, ok := cmdr.Command(call.Args); ok {
			req := ApprovalRequest{Command: cmd, Tool: call.Name, CallID: call.ID, TaskID: call.TaskID, SessionID: call.SessionID}
			if err := e.Approver.Approve(ctx, req); err != nil {
				msg := strings.TrimSpace(err.Error())
				if !strings.HasSuffix(msg, ".") {
					msg += "."
				}
				return Outcome{Call: call, Status: StatusBlocked, Result: Error("Command not run: " + msg)}
			}
		}
	}
	return e.invoke(ctx, p, call)
}

// invoke runs the tool under its deadline. A tool that ignores its context
// is abandoned when the deadline passes: the turn goes on without it.
func (e *Executor) invoke(ctx context.Context, p *prepared, call Call) Outcome {
	timeout := p.spec.Timeout
	if timeout <= 0 {
		timeout = e.Timeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithCancel(ctx)
	if !p.spec.NoTimeout {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	runCtx = context.WithValue(runCtx, executorKey{}, e)

	type ret struct {
		res Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- ret{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		res, err := p.tool.Run(runCtx, call)
		done <- ret{res, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-runCtx.Done():
		// Give the tool a moment to return its own result (it may report
		// partial output) before abandoning it.
		select {
		case r = <-done:
		case <-time.After(2 * time.Second):
			r = ret{err: runCtx.Err()}
		}
	}
	switch {
	case ctx.Err() != nil:
		msg := fmt.Sprintf("[Tool execution cancelled — %s was interrupted]", call.Name)
		if r.res.Content != "" {
			msg += "\n" + r.res.Content // what the tool reported before it stopped
		}
		return Outcome{Call: call, Status: StatusCancelled, Result: Error(msg)}
	case runCtx.Err() == context.DeadlineExceeded && (r.err != nil || r.res.IsError):
		msg := fmt.Sprintf("Error executing tool '%s': timed out after %s", call.Name, timeout)
		if r.res.Content != "" {
			msg += "\n" + r.res.Content
		}
		return Outcome{Call: call, Status: StatusTimeout, Result: Error(msg)}
	case r.err != nil:
		return Outcome{Call: call, Status: StatusError,
			Result: Error(truncate(fmt.Sprintf("Tool execution failed: %v", r.err), maxErrorChars))}
	case r.res.IsError:
		return Outcome{Call: call, Status: StatusError, Result: r.res}
	}
	return Outcome{Call: call, Status: StatusOK, Result: r.res}
}

// capResult cuts a result longer than the cap and keeps the whole of it
// in a file the result names.
func (e *Executor) capResult(p *prepared, o *Outcome) {
	limit := e.MaxResultChars
	if limit <= 0 {
		limit = DefaultMaxResultChars
	}
	if p.spec.MaxResultChars > 0 {
		limit = min(limit, p.spec.MaxResultChars)
	}
	content := o.Result.Content
	if len(content) <= limit {
		return
	}
	dir := e.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hermes-tool-output")
	}
	name := fmt.Sprintf("%s-%s.txt", safeName(o.Call.Name), safeName(o.Call.ID))
	path := filepath.Join(dir, name)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.WriteFile(path, []byte(content), 0o600)
	}
	keep := truncate(content, limit)
	if err != nil {
		o.Result.Content = keep + fmt.Sprintf("\n\n[Output cut at %d of %d chars; saving the full output failed: %v]", limit, len(content), err)
		return
	}
	o.SpillPath = path
	o.Result.Content = keep + fmt.Sprintf("\n\n[Output cut at %d of %d chars. Full output saved to %s; read it with read_file using offset and limit.]", limit, len(content), path)
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "call"
	}
	return b.String()
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
