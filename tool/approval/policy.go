package approval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// DefaultTimeout is how long a prompt waits for the user before denying.
const DefaultTimeout = 300 * time.Second

// Choice is the user's answer to a prompt. The zero value is Deny.
type Choice int

// Answers to an approval prompt.
const (
	Deny Choice = iota
	Once
	Session
	Always
)

func (c Choice) String() string {
	switch c {
	case Once:
		return "once"
	case Session:
		return "session"
	case Always:
		return "always"
	}
	return "deny"
}

// Prompt is what the user is asked about.
type Prompt struct {
	Command  string
	Findings []Finding // the patterns still needing approval
	Tool     string
	// CallID is the tool call the command belongs to.
	CallID string
	TaskID string
	// SessionID is the conversation asking.
	SessionID string
}

// Description joins the findings' descriptions for display.
func (p Prompt) Description() string {
	ds := make([]string, len(p.Findings))
	for i, f := range p.Findings {
		ds[i] = f.Description
	}
	return strings.Join(ds, "; ")
}

// Options configure an Approver.
type Options struct {
	// Mode is "manual" (default: ask) or "off" (allow all but hardline).
	Mode string
	// Yolo allows everything except hardline patterns.
	Yolo bool
	// Allowlist holds pattern keys (or their descriptions) approved for
	// good: command_allowlist in the config.
	Allowlist []string
	// Shared, when set, is the runtime's list of keys approved for good,
	// which this Approver consults on every decision and adds "always"
	// answers to (saving them with its Save); Allowlist and SaveAllowlist
	// are then ignored.
	Shared *Allowlist
	// Ask asks the user. Nil means no user is attached: commands needing
	// approval are denied.
	Ask func(ctx context.Context, p Prompt) (Choice, error)
	// Timeout bounds the wait for an answer; 0 means DefaultTimeout.
	Timeout time.Duration
	// SaveAllowlist persists a key chosen with "always".
	SaveAllowlist func(key string) error
	// OnWarning hears of a key that could not be saved (nil: slog).
	OnWarning func(msg string)
	// WritableRoots are the trees commands may write (the workspace and
	// the sandbox's other writable roots): deleting a file inside one is
	// never deleting a system file, wherever the root lies.
	WritableRoots []string
	// After returns a channel that fires after d; nil means time.After.
	// Tests inject their own to avoid waiting.
	After func(d time.Duration) <-chan time.Time
}

// Approver applies the policy. It implements tool.Approver.
type Approver struct {
	opts Options

	mu       sync.Mutex
	yolo     bool
	sessions map[string]map[string]bool // session id -> approved keys
}

var _ tool.Approver = (*Approver)(nil)

// New returns an Approver.
func New(opts Options) *Approver {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Shared == nil {
		opts.Shared = NewAllowlist(opts.Allowlist, opts.SaveAllowlist)
	}
	return &Approver{opts: opts, yolo: opts.Yolo, sessions: map[string]map[string]bool{}}
}

// SetYolo turns yolo mode on or off (the /yolo command).
func (a *Approver) SetYolo(on bool) {
	a.mu.Lock()
	a.yolo = on
	a.mu.Unlock()
}

// Yolo reports whether yolo mode is on.
func (a *Approver) Yolo() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.yolo
}

// DeniedError is returned when a command may not run. Its text is written
// for the model.
type DeniedError struct {
	Command  string
	Findings []Finding
	// Reason is one of "hardline", "no_user", "user", "timeout", "error".
	Reason string
	Err    error
	msg    string
}

func (e *DeniedError) Error() string { return e.msg }
func (e *DeniedError) Unwrap() error { return e.Err }

// Approve decides whether req.Command may run.
func (a *Approver) Approve(ctx context.Context, req tool.ApprovalRequest) error {
	var findings []Finding
	if f, ok := toolFinding(req.Tool); ok {
		findings = []Finding{f}
	} else {
		findings = CheckIn(req.Command, a.opts.WritableRoots)
	}
	if len(findings) == 0 {
		return nil
	}
	if findings[0].Hardline {
		var hard []Finding
		for _, f := range findings {
			if f.Hardline {
				hard = append(hard, f)
			}
		}
		if len(hard) == 1 && hard[0] == hlUnparsed {
			return &DeniedError{Command: req.Command, Findings: hard, Reason: "hardline", msg: fmt.Sprintf(
				"BLOCKED: the shell cannot parse this command (%s), so it was not run, not even with --yolo or approvals off. Check its quotes, brackets and here-documents and send it again.",
				describe(hard))}
		}
		return &DeniedError{Command: req.Command, Findings: hard, Reason: "hardline", msg: fmt.Sprintf(
			"BLOCKED: this command matches the hardline list (%s) and is never run, not even with --yolo or approvals off. Do not retry it or a variation of it; if it is truly intended, ask the user to run it themselves.",
			describe(hard))}
	}
	pending := a.pending(req.SessionID, findings)
	if len(pending) == 0 {
		return nil
	}
	if a.opts.Ask == nil {
		keys := make([]string, len(pending))
		for i, f := range pending {
			keys[i] = f.Key
		}
		return &DeniedError{Command: req.Command, Findings: pending, Reason: "no_user", msg: fmt.Sprintf(
			"DENIED: this command needs approval (%s) but no user is attached to approve it; rerun with --yolo or add %s to command_allowlist. Do not retry the same command.",
			describe(pending), quoteJoin(keys))}
	}
	choice, err := a.ask(ctx, Prompt{Command: req.Command, Findings: pending, Tool: req.Tool, CallID: req.CallID, TaskID: req.TaskID, SessionID: req.SessionID})
	if err != nil {
		return err
	}
	switch choice {
	case Once:
		return nil
	case Session, Always:
		a.mu.Lock()
		s := a.sessions[req.SessionID]
		if s == nil {
			s = map[string]bool{}
			a.sessions[req.SessionID] = s
		}
		for _, f := range pending {
			s[f.Key] = true
		}
		a.mu.Unlock()
		if choice == Always {
			// The user approved, so the command runs whatever happens
			// here; a key that could not be saved is still allowed for the
			// life of the list, and the failure is reported.
			for _, f := range pending {
				if err := a.opts.Shared.Add(f.Key); err != nil {
					msg := fmt.Sprintf("approval: %s could not be saved to command_allowlist (allowed for this run only): %v", f.Key, err)
					if a.opts.OnWarning != nil {
						a.opts.OnWarning(msg)
					} else {
						slog.Warn(msg)
					}
				}
			}
		}
		return nil
	}
	return &DeniedError{Command: req.Command, Findings: pending, Reason: "user", msg: fmt.Sprintf(
		"DENIED by the user (%s). Do not retry this command or a variation of it; ask the user how to proceed.", describe(pending))}
}

// pending returns the findings not already approved.
func (a *Approver) pending(session string, fs []Finding) []Finding {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.yolo || a.opts.Mode == "off" {
		return nil
	}
	var out []Finding
	for _, f := range fs {
		if a.sessions[session][f.Key] || a.opts.Shared.Has(f) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// ErrNoAnswer is the cause (context.Cause) of a prompt's context
// withdrawn because nobody answered within Options.Timeout, so a UI can
// say the command was denied for want of an answer rather than stopped.
var ErrNoAnswer = errors.New("no answer within the approval timeout")

// ask runs the prompt with a deadline; the prompt's context is cancelled
// when the answer is no longer awaited, so a UI can withdraw it.
func (a *Approver) ask(ctx context.Context, p Prompt) (Choice, error) {
	cancelled := func() (Choice, error) {
		return Deny, &DeniedError{Command: p.Command, Findings: p.Findings, Reason: "error", Err: ctx.Err(), msg: fmt.Sprintf(
			"DENIED: the approval request was cancelled (%v); the command was not run.", ctx.Err())}
	}
	if ctx.Err() != nil {
		return cancelled()
	}
	askCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type answer struct {
		c   Choice
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		c, err := a.opts.Ask(askCtx, p)
		ch <- answer{c, err}
	}()
	select {
	case ans := <-ch:
		if ans.err != nil {
			return Deny, &DeniedError{Command: p.Command, Findings: p.Findings, Reason: "error", Err: ans.err, msg: fmt.Sprintf(
				"DENIED: the approval prompt failed (%v), so the command (%s) was not run.", ans.err, p.Description())}
		}
		if ctx.Err() != nil {
			// An answer that comes as the request is cancelled (the
			// turn interrupted) approves nothing: approvals fail closed.
			return cancelled()
		}
		return ans.c, nil
	case <-a.opts.After(a.opts.Timeout):
		cancel(ErrNoAnswer)
		return Deny, &DeniedError{Command: p.Command, Findings: p.Findings, Reason: "timeout", msg: fmt.Sprintf(
			"DENIED: no answer to the approval request within %s (%s); the command was not run.", a.opts.Timeout, p.Description())}
	case <-ctx.Done():
		return cancelled()
	}
}

func describe(fs []Finding) string {
	ds := make([]string, len(fs))
	for i, f := range fs {
		ds[i] = f.Description
	}
	return strings.Join(ds, "; ")
}

func quoteJoin(keys []string) string {
	keys = slices.Clone(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(keys, ", ")
}
