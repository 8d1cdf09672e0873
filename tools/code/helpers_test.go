package code

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/terminal"
)

// box is a workspace with a sandboxed terminal, the file tools and
// execute_code, all run by one Executor as the agent runs them.
type box struct {
	ws, outside, scratch string
	exec                 *tool.Executor
	code                 *Tool
	asked                []string // commands the approver asked about
}

type boxOptions struct {
	ask  bool         // a person answers approvals (yes); otherwise nobody does
	mode sandbox.Mode // default workspace-write
	opts Options
}

func newBox(t testing.TB, bo boxOptions) *box {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	base := sandbox.Resolve(t.TempDir())
	b := &box{ws: filepath.Join(base, "work"), outside: filepath.Join(base, "outside"), scratch: filepath.Join(base, "tmp")}
	for _, d := range []string{b.ws, b.outside, b.scratch, filepath.Join(base, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: cmp.Or(bo.mode, sandbox.WorkspaceWrite), Workdir: b.ws, Home: filepath.Join(base, "home"), Scratch: []string{b.scratch}})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Enforcement(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	term := terminal.New(terminal.Options{Dir: b.ws, Sandbox: &p})
	t.Cleanup(func() { term.Close() })
	files := file.New(file.Options{Workdir: term.Workdir, WriteGuard: p.CheckWrite, ReadGuard: p.CheckRead})
	reg := tool.NewRegistry(append([]tool.Tool{term.TerminalTool()}, files.All()...)...)

	o := bo.opts
	o.Start = term.StartProgram
	o.Workdir = term.Workdir
	o.Dir = b.scratch
	o.SpillDir = filepath.Join(b.scratch, "spill")
	o.Tools = func() []tool.Tool {
		var out []tool.Tool
		for _, n := range reg.Names() {
			t, _ := reg.Get(n)
			out = append(out, t)
		}
		return out
	}
	b.code = New(o)
	reg.MustRegister(b.code)

	var ask func(context.Context, approval.Prompt) (approval.Choice, error)
	if bo.ask {
		ask = func(_ context.Context, pr approval.Prompt) (approval.Choice, error) {
			b.asked = append(b.asked, pr.Command)
			return approval.Once, nil
		}
	}
	b.exec = &tool.Executor{
		Resolve:  reg.Get,
		Names:    reg.Names,
		Approver: approval.New(approval.Options{Ask: ask, WritableRoots: p.WritableRoots}),
		Redact:   func(s string) string { return s },
	}
	return b
}

// run runs a script as the model would call execute_code and decodes
// its result.
func (b *box) run(t *testing.T, code string, timeout ...float64) (Result, tool.Outcome) {
	t.Helper()
	args := map[string]any{"code": code}
	if len(timeout) > 0 {
		args["timeout"] = timeout[0]
	}
	raw, _ := json.Marshal(args)
	o := b.exec.Run(context.Background(), tool.Call{ID: "call-1", Name: "execute_code", Args: raw, TaskID: "task"})
	var r Result
	if err := json.Unmarshal([]byte(o.Result.Content), &r); err != nil {
		t.Fatalf("execute_code returned no result: %v\n%s", err, o.Result.Content)
	}
	return r, o
}

func (b *box) write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(b.ws, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
