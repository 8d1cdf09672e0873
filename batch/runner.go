package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Task is one prompt as an engine runs it.
type Task struct {
	RunName string
	Prompt  Prompt
	// Toolsets are the toolsets on for this prompt.
	Toolsets []string
	// Workspace is the directory the prompt works in: the dataset's cwd,
	// or a fresh directory of its own (relative paths are resolved by the
	// engine, on the machine that runs the prompt).
	Workspace string
	// OwnWorkspace says the workspace was made for this prompt, so it is
	// removed after it unless KeepWorkspace.
	OwnWorkspace  bool
	KeepWorkspace bool
	// Images go with the prompt's user message (loaded from the dataset's
	// image field).
	Images []llm.Image `json:",omitempty"`
}

// Engine runs one prompt to the end of its turn. An error means the
// prompt could not run (it is recorded and retried on --resume); when ctx
// is cancelled the engine returns ctx's error and the prompt counts as
// not run.
type Engine interface {
	Name() string
	Run(ctx context.Context, t Task) (*Outcome, error)
}

// Options configure a batch run.
type Options struct {
	Prompts []Prompt
	RunName string
	// Dir is the run's directory (default data/<RunName>).
	Dir     string
	Workers int
	Resume  bool
	// Distribution samples toolsets per prompt; Toolsets, when set
	// instead, are on for every prompt. With neither, every toolset of
	// Known is on.
	Distribution string
	Toolsets     []string
	// Known are the toolsets the engine has; Universe the tools of them
	// all (tool_stats lists every one).
	Known    []string
	Universe []string
	Seed     uint64
	// Model names the model in statistics.json.
	Model         string
	KeepWorkspace bool
	Engine        Engine
	// Progress receives the progress bar (Terminal) or one line per
	// prompt.
	Progress io.Writer
	Terminal bool
	Now      func() time.Time
}

// Summary is what a run did.
type Summary struct {
	Dir        string
	Statistics Statistics
	// Ran counts the prompts this invocation finished; Skipped those
	// already done before it.
	Ran, Skipped int
	Interrupted  bool
}

// Run runs every prompt that has no trajectory yet, Workers at a time,
// writes each one's trajectory as it ends, and statistics.json at the end
// (also when ctx is cancelled: then the prompts still running are
// dropped and run again on --resume).
func Run(ctx context.Context, o Options) (*Summary, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.Dir == "" {
		o.Dir = filepath.Join("data", o.RunName)
	}
	if err := validRunName(o.RunName); err != nil {
		return nil, err
	}
	sampler, distName, err := o.sampler()
	if err != nil {
		return nil, err
	}
	out, notes, err := openOutput(o.Dir, o.RunName, o.Resume, o.Prompts)
	if err != nil {
		return nil, err
	}
	defer out.close()

	start := o.Now()
	var todo []Prompt
	for _, p := range o.Prompts {
		if !out.isDone(p.Index) {
			todo = append(todo, p)
		}
	}
	sum := &Summary{Dir: o.Dir, Skipped: len(o.Prompts) - len(todo)}
	prog := newProgress(o.Progress, o.Terminal, len(o.Prompts), sum.Skipped, o.Now)
	for _, n := range notes {
		prog.line("hermes batch: " + n)
	}
	if sum.Skipped > 0 {
		prog.line(fmt.Sprintf("hermes batch: resuming %s: %d of %d prompts already done", o.RunName, sum.Skipped, len(o.Prompts)))
	}

	r := &runner{o: o, out: out, prog: prog, sample: sampler}
	r.runAll(ctx, todo)
	prog.end()
	sum.Ran = r.ran
	sum.Interrupted = ctx.Err() != nil

	entries, err := out.entries()
	if err != nil {
		return nil, err
	}
	st := statistics(entries)
	st.RunName, st.Distribution, st.Model, st.Engine = o.RunName, distName, o.Model, o.Engine.Name()
	if st.Model == "" && len(entries) > 0 {
		st.Model = entries[len(entries)-1].Metadata.Model // the workers' choice
	}
	st.TotalPrompts = len(o.Prompts)
	st.Errors = r.errors
	st.Remaining = len(o.Prompts) - st.Trajectories
	st.Seconds = round2(o.Now().Sub(start).Seconds())
	sum.Statistics = st
	if err := writeStatistics(o.Dir, st, o.Now()); err != nil {
		return sum, fmt.Errorf("statistics: %w", err)
	}
	if err := out.checkpoint(); err != nil {
		return sum, fmt.Errorf("checkpoint: %w", err)
	}
	if r.writeErr != nil {
		return sum, r.writeErr
	}
	return sum, nil
}

// sampler returns what picks each prompt's toolsets.
func (o *Options) sampler() (func(int) []string, string, error) {
	if o.Distribution != "" && len(o.Toolsets) > 0 {
		return nil, "", errors.New("--toolsets and --distribution both choose the toolsets: give one")
	}
	if len(o.Toolsets) > 0 {
		fixed := append([]string(nil), o.Toolsets...)
		return func(int) []string { return fixed }, "", nil
	}
	name := o.Distribution
	if name == "" {
		name = "default"
	}
	d, err := LookupDistribution(name)
	if err != nil {
		return nil, "", err
	}
	d, dropped, err := d.Restrict(o.Known)
	if err != nil {
		return nil, "", err
	}
	if len(dropped) > 0 && o.Progress != nil {
		fmt.Fprintf(o.Progress, "hermes batch: distribution %s: toolsets this hermes does not have are left out: %s\n", name, strings.Join(dropped, ", "))
	}
	return func(i int) []string { return d.Sample(o.Seed, i) }, name, nil
}

func validRunName(n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) {
		return fmt.Errorf("run name %q: give a plain name (it names the directory data/<name>)", n)
	}
	return nil
}

// runner is one invocation's state.
type runner struct {
	o      Options
	out    *output
	prog   *progress
	sample func(int) []string

	mu       sync.Mutex
	ran      int
	errors   int
	writeErr error
}

func (r *runner) runAll(ctx context.Context, todo []Prompt) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Prompt)
	var wg sync.WaitGroup
	for range min(r.o.Workers, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				if err := r.one(ctx, p); err != nil {
					// The disk failed us: stop rather than run prompts whose
					// results cannot be kept.
					r.mu.Lock()
					if r.writeErr == nil {
						r.writeErr = err
					}
					r.mu.Unlock()
					cancel()
				}
			}
		}()
	}
feed:
	for _, p := range todo {
		select {
		case jobs <- p:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
}

// one runs a prompt and writes what came of it. Its error is a failure to
// write, which ends the run.
func (r *runner) one(ctx context.Context, p Prompt) error {
	if ctx.Err() != nil {
		return nil
	}
	t, err := r.task(p)
	begin := r.o.Now()
	var out *Outcome
	if err == nil {
		out, err = r.o.Engine.Run(ctx, t)
	}
	if ctx.Err() != nil {
		return nil // interrupted: runs again on --resume
	}
	if err != nil {
		r.mu.Lock()
		r.errors++
		r.mu.Unlock()
		werr := r.out.writeError(ErrorRecord{PromptIndex: p.Index, Prompt: p.Text, Error: err.Error(), Timestamp: r.o.Now().Format(time.RFC3339)})
		r.prog.finished(p.Index, "error", ": "+err.Error())
		return werr
	}
	if out.Duration == 0 {
		out.Duration = r.o.Now().Sub(begin)
	}
	e := newEntry(p, t.Toolsets, out, r.o.Engine.Name(), r.o.Universe, r.o.Now())
	if err := r.out.write(&e); err != nil {
		return err
	}
	r.mu.Lock()
	r.ran++
	r.mu.Unlock()
	status := "completed"
	switch {
	case out.Partial:
		status = "partial"
	case !out.Completed:
		status = "failed"
	}
	detail := fmt.Sprintf(" · %d api calls · %.1fs", out.APICalls, out.Duration.Seconds())
	if !out.Completed {
		detail = " (" + out.ExitReason + ")" + detail
	}
	r.prog.finished(p.Index, status, detail)
	return nil
}

// task is what an engine runs for p, or why p cannot run.
func (r *runner) task(p Prompt) (Task, error) {
	t := Task{RunName: r.o.RunName, Prompt: p, Toolsets: r.sample(p.Index), KeepWorkspace: r.o.KeepWorkspace}
	switch {
	case p.Problem != "":
		return t, errors.New(p.Problem)
	case p.DockerImage != "":
		return t, fmt.Errorf("prompt %d names a container image (%s): commands run in hermes' sandbox around the prompt's workspace, not in containers", p.Index, p.DockerImage)
	}
	if p.Image != "" {
		// Loaded here, where the dataset is, so an engine on another
		// machine gets the image itself.
		img, err := llm.LoadImage(p.Image)
		if err != nil {
			return t, fmt.Errorf("prompt %d: %w", p.Index, err)
		}
		t.Images = []llm.Image{img}
	}
	if p.Cwd != "" {
		t.Workspace = p.Cwd
	} else {
		t.Workspace = filepath.Join(r.o.Dir, "workspaces", fmt.Sprint(p.Index))
		t.OwnWorkspace = true
	}
	return t, nil
}

// PrepareWorkspace makes t's workspace (resolved against the current
// directory) and returns its absolute path and what removes it after the
// prompt (nothing for a dataset's cwd, or when kept). fresh empties a
// workspace an earlier, interrupted attempt left.
func PrepareWorkspace(t Task, fresh bool) (string, func(), error) {
	dir, err := filepath.Abs(t.Workspace)
	if err != nil {
		return "", nil, fmt.Errorf("workspace: %w", err)
	}
	if !t.OwnWorkspace {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", nil, fmt.Errorf("prompt %d: cwd %s is not a directory", t.Prompt.Index, dir)
		}
		return dir, func() {}, nil
	}
	if fresh {
		if err := os.RemoveAll(dir); err != nil {
			return "", nil, fmt.Errorf("workspace: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("workspace: %w", err)
	}
	if t.KeepWorkspace {
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}
