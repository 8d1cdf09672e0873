package terminal

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/tool"
)

//go:embed process.md
var processDescription string

const (
	defaultLogLimit = 20_000
	defaultWait     = 30 * time.Second
	maxWait         = 10 * time.Minute
)

type processArgs struct {
	Action  string   `json:"action" enum:"list,poll,log,wait,kill"`
	ID      string   `json:"id,omitempty" jsonschema:"Required except for list."`
	Offset  *int64   `json:"offset,omitempty" minimum:"0"`
	Limit   int      `json:"limit,omitempty" minimum:"1"`
	Timeout *float64 `json:"timeout,omitempty"`
}

// ProcessTool returns the "process" tool managing background processes.
func (t *Terminal) ProcessTool() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "process",
		Description: strings.TrimSpace(processDescription),
		Toolset:     "terminal",
		Class:       tool.Parallel,
		Timeout:     maxWait + 30*time.Second,
	}, processTool{t}.run))
}

type processTool struct{ t *Terminal }

func (pt processTool) run(ctx context.Context, call tool.Call, a processArgs) (tool.Result, error) {
	if a.Action == "list" {
		return pt.list(call.TaskID), nil
	}
	if a.ID == "" {
		return tool.Error(fmt.Sprintf("process: action %q needs an id (see action list)", a.Action)), nil
	}
	p, ok := pt.t.procs.get(a.ID)
	if !ok {
		return tool.Error(fmt.Sprintf("process: no background process %q (see action list)", a.ID)), nil
	}
	switch a.Action {
	case "poll":
		return pt.poll(p), nil
	case "log":
		return pt.log(p, a), nil
	case "wait":
		return pt.wait(ctx, p, a), nil
	case "kill":
		return pt.kill(ctx, p), nil
	}
	return tool.Error(fmt.Sprintf("process: unknown action %q; use list, poll, log, wait or kill", a.Action)), nil
}

func (pt processTool) list(task string) tool.Result {
	ps := pt.t.procs.list(task)
	if len(ps) == 0 {
		return tool.Text("No background processes.")
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.status())
		b.WriteByte('\n')
	}
	return tool.Text(pt.t.opts.Redact(b.String()))
}

func (pt processTool) poll(p *process) tool.Result {
	_, _, total, _ := p.log.read(0, 0)
	tail, _, _, _ := p.log.read(max(0, total-2000), 2000)
	s := fmt.Sprintf("%s\noutput so far: %d bytes\n--- last output ---\n%s", p.status(), total, tail)
	return tool.Text(pt.t.opts.Redact(s))
}

func (pt processTool) log(p *process, a processArgs) tool.Result {
	limit := a.Limit
	if limit <= 0 {
		limit = defaultLogLimit
	}
	var off int64
	if a.Offset != nil {
		off = *a.Offset
	}
	text, next, total, lost := p.log.read(off, limit)
	var b strings.Builder
	b.WriteString(p.status())
	b.WriteByte('\n')
	if lost {
		fmt.Fprintf(&b, "note: output before byte %d was dropped (only the newest %d bytes are kept)\n", next-int64(len(text)), pt.t.opts.LogBuffer)
	}
	fmt.Fprintf(&b, "bytes %d-%d of %d (stdout and stderr combined); next_offset: %d\n", next-int64(len(text)), next, total, next)
	b.WriteString("---\n")
	b.WriteString(text)
	return tool.Text(pt.t.opts.Redact(b.String()))
}

func (pt processTool) wait(ctx context.Context, p *process, a processArgs) tool.Result {
	d := defaultWait
	if a.Timeout != nil && *a.Timeout > 0 {
		d = time.Duration(*a.Timeout * float64(time.Second))
	}
	d = min(d, maxWait)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return pt.poll(p)
	case <-timer.C:
		r := pt.poll(p)
		r.Content = fmt.Sprintf("still running after waiting %s\n%s", d, r.Content)
		return r
	case <-ctx.Done():
		return tool.Error(fmt.Sprintf("process: wait for %s cancelled: %v", p.id, ctx.Err()))
	}
}

func (pt processTool) kill(ctx context.Context, p *process) tool.Result {
	if !p.running() {
		return tool.Text(p.status() + "\n(already finished; nothing to kill)")
	}
	p.kill()
	select {
	case <-p.done:
		return tool.Text(p.status())
	case <-ctx.Done():
		return tool.Error(fmt.Sprintf("process: kill %s: sent SIGKILL but stopped waiting: %v", p.id, ctx.Err()))
	}
}
