package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// batchScript answers every request of a batch run from its content
// alone, so prompts may run in any order, in any process: "task N" is
// answered at once with reasoning when N%5 == 0; otherwise with two tool
// rounds (a terminal command appending "N-k" to calls.log in the
// prompt's workspace; for N%7 == 0 the first round reads a missing file,
// for N%11 == 0 it is a dangerous command nobody approves) and then
// "done N".
func batchScript(delay time.Duration) func(*llmtest.Request) llmtest.Reply {
	return func(req *llmtest.Request) llmtest.Reply {
		n, rounds := batchState(req.Messages())
		r := batchReply(n, rounds)
		r.Delay = delay
		return r
	}
}

func batchState(msgs []llm.Message) (n, rounds int) {
	n = -1
	for _, m := range msgs {
		switch {
		case m.Role == llm.RoleUser && n < 0:
			n, _ = strconv.Atoi(strings.TrimPrefix(m.Content, "task "))
		case m.Role == llm.RoleTool:
			rounds++
		}
	}
	return n, rounds
}

func batchReply(n, rounds int) llmtest.Reply {
	id := fmt.Sprintf("call_%d_%d", n, rounds)
	terminal := func(cmd string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "terminal", Arguments: fmt.Sprintf(`{"command":%q}`, cmd)}}}
	}
	switch {
	case n%5 == 0:
		return llmtest.Reply{Reasoning: fmt.Sprintf("task %d needs no tools", n), Text: fmt.Sprintf("answer %d", n)}
	case rounds == 0 && n%7 == 0:
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"missing-%d.txt"}`, n)}}}
	case rounds == 0 && n%11 == 0:
		return terminal("rm -rf build")
	case rounds < 2:
		return terminal(fmt.Sprintf("echo %d-%d >> calls.log", n, rounds))
	}
	return llmtest.Reply{Text: fmt.Sprintf("done %d", n)}
}

// batchExpect is what the script makes of prompt n: API calls, and
// per tool (calls, failures).
func batchExpect(n int) (apiCalls int, tools map[string][2]int) {
	tools = map[string][2]int{}
	if n%5 == 0 {
		return 1, tools
	}
	switch {
	case n%7 == 0:
		tools["read_file"] = [2]int{1, 1}
		tools["terminal"] = [2]int{1, 0}
	case n%11 == 0:
		tools["terminal"] = [2]int{2, 1}
	default:
		tools["terminal"] = [2]int{2, 0}
	}
	return 3, tools
}

func writeDataset(t *testing.T, dir string, n int) string { return writeDatasetTB(t, dir, n) }

func writeDatasetTB(t testing.TB, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"prompt\": \"task %d\"}\n", i)
	}
	path := filepath.Join(dir, "prompts.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// batchDirs makes a HERMES_HOME and, apart from it, the directory the
// batch runs in (its data/ and the workspaces in it).
func batchDirs(t *testing.T) (home, work string) {
	root := t.TempDir()
	home, work = filepath.Join(root, "home"), filepath.Join(root, "work")
	mkdirs(t, home, work)
	return home, work
}

func mkdirs(t testing.TB, dirs ...string) {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func readEntries(t *testing.T, path string) []batch.Entry { return readEntriesTB(t, path) }

func readEntriesTB(t testing.TB, path string) []batch.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []batch.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e batch.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s: line %d: %v", path, len(out)+1, err)
		}
		out = append(out, e)
	}
	return out
}

func readStats(t *testing.T, dir string) batch.Statistics {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, batch.StatisticsFile))
	if err != nil {
		t.Fatal(err)
	}
	var s batch.Statistics
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// checkBatchRun checks a finished run of the script over n prompts:
// every prompt once, each trajectory what its conversation was, and the
// statistics their sum.
func checkBatchRun(t *testing.T, dir string, n int) []batch.Entry {
	t.Helper()
	entries := readEntries(t, filepath.Join(dir, batch.TrajectoriesFile))
	seen := map[int]int{}
	wantCalls, wantTools := 0, map[string][2]int{}
	for _, e := range entries {
		seen[e.PromptIndex]++
		checkTrajectory(t, e)
		calls, tools := batchExpect(e.PromptIndex)
		wantCalls += calls
		for k, v := range tools {
			w := wantTools[k]
			wantTools[k] = [2]int{w[0] + v[0], w[1] + v[1]}
		}
	}
	for i := range n {
		if seen[i] != 1 {
			t.Errorf("prompt %d has %d trajectories, want exactly 1", i, seen[i])
		}
	}
	if len(entries) != n {
		t.Errorf("%d trajectories, want %d", len(entries), n)
	}
	st := readStats(t, dir)
	if st.TotalPrompts != n || st.Trajectories != n || st.Completed != n || st.Failed != 0 || st.Remaining != 0 || st.APICalls != wantCalls {
		t.Errorf("statistics: total %d, trajectories %d, completed %d, failed %d, remaining %d, api calls %d; want %d, %d, %d, 0, 0, %d",
			st.TotalPrompts, st.Trajectories, st.Completed, st.Failed, st.Remaining, st.APICalls, n, n, n, wantCalls)
	}
	for name, w := range wantTools {
		got := st.Tools[name]
		if got.Count != w[0] || got.Failure != w[1] || got.Success != w[0]-w[1] {
			t.Errorf("tool_statistics[%s] = %+v, want %d calls, %d failures", name, got, w[0], w[1])
		}
	}
	if st.ExitReasons["text_response"] != n {
		t.Errorf("exit reasons %v, want %d text_response", st.ExitReasons, n)
	}
	return entries
}

// checkTrajectory checks one line against what the script said.
func checkTrajectory(t *testing.T, e batch.Entry) {
	t.Helper()
	n := e.PromptIndex
	calls, tools := batchExpect(n)
	c := e.Conversations
	if len(c) < 3 || c[0].From != "system" || c[1].From != "human" || c[1].Value != fmt.Sprintf("task %d", n) {
		t.Fatalf("prompt %d: conversation starts %+v", n, c[:min(len(c), 2)])
	}
	if !contains(c[0].Value, "You are a function calling AI model.", "<tools>\n[{\"name\": ", `"name": "terminal"`, "</tools>") {
		t.Errorf("prompt %d: system turn does not list the tools: %.300s", n, c[0].Value)
	}
	if !e.Completed || e.Partial || e.APICalls != calls || e.Metadata.Model != "m" || e.Metadata.ExitReason != "text_response" {
		t.Errorf("prompt %d: completed %v partial %v api_calls %d model %q exit %q; want true false %d m text_response",
			n, e.Completed, e.Partial, e.APICalls, e.Metadata.Model, e.Metadata.ExitReason, calls)
	}
	last := c[len(c)-1]
	want := fmt.Sprintf("<think>\n</think>\ndone %d", n)
	if n%5 == 0 {
		want = fmt.Sprintf("<think>\ntask %d needs no tools\n</think>\nanswer %d", n, n)
	}
	if last.From != "gpt" || last.Value != want {
		t.Errorf("prompt %d: last turn %+v, want gpt %q", n, last, want)
	}
	rounds := 0
	for i, turn := range c[2 : len(c)-1] {
		switch turn.From {
		case "gpt":
			body, ok := strings.CutPrefix(turn.Value, "<think>\n</think>\n<tool_call>\n")
			body, ok2 := strings.CutSuffix(body, "\n</tool_call>")
			var call struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if !ok || !ok2 || json.Unmarshal([]byte(body), &call) != nil || call.Name == "" || call.Arguments == nil {
				t.Fatalf("prompt %d: gpt turn %d is not one <tool_call>: %q", n, i, turn.Value)
			}
		case "tool":
			body, ok := strings.CutPrefix(turn.Value, "<tool_response>\n")
			body, ok2 := strings.CutSuffix(body, "\n</tool_response>")
			var resp struct {
				ID      string `json:"tool_call_id"`
				Name    string `json:"name"`
				Content any    `json:"content"`
			}
			if !ok || !ok2 || json.Unmarshal([]byte(body), &resp) != nil || resp.ID != fmt.Sprintf("call_%d_%d", n, rounds) {
				t.Fatalf("prompt %d: tool turn %d is not its <tool_response>: %q", n, i, turn.Value)
			}
			if n%11 == 0 && n%7 != 0 && rounds == 0 && !strings.Contains(turn.Value, "DENIED") {
				t.Errorf("prompt %d: the dangerous command was not denied: %s", n, turn.Value)
			}
			rounds++
		default:
			t.Fatalf("prompt %d: unexpected turn %+v", n, turn)
		}
	}
	if wantRounds := (calls - 1); rounds != wantRounds {
		t.Errorf("prompt %d: %d tool turns, want %d", n, rounds, wantRounds)
	}
	for name, w := range tools {
		if got := e.ToolStats[name]; got.Count != w[0] || got.Failure != w[1] || e.ToolErrorCounts[name] != w[1] {
			t.Errorf("prompt %d: tool_stats[%s] = %+v, errors %d; want %d calls, %d failures", n, name, got, e.ToolErrorCounts[name], w[0], w[1])
		}
	}
	// Every line lists every tool, used or not.
	if _, ok := e.ToolStats["write_file"]; !ok {
		t.Errorf("prompt %d: tool_stats leaves out unused tools: %v", n, e.ToolStats)
	}
}

func batchCmd(home, work string, args ...string) *exec.Cmd {
	cmd := exec.Command(hermesBin, append([]string{"batch"}, args...)...)
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	return cmd
}

// A 200-prompt dataset: every prompt gets one valid trajectory, its
// commands ran in its own workspace and session, dangerous commands were
// denied, and statistics.json sums the lines.
func TestBatchRunsEveryPromptOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(batchScript(0))
	home, work := batchDirs(t)
	ds := writeDataset(t, work, 200)
	r := run(t, batchCmd(home, work, "--dataset", ds, "--run-name", "r1", "--workers", "16", "--keep-workspaces",
		"--provider", "custom", "--base-url", srv.URL(), "--model", "m"))
	if r.code != 0 || !contains(r.stdout, "r1: 200/200 prompts have trajectories (200 completed, 0 partial, 0 failed); 200 ran now") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	// Not a terminal: one line per prompt.
	if got := strings.Count(r.stderr, "] prompt "); got != 200 {
		t.Errorf("%d progress lines, want 200:\n%s", got, r.stderr)
	}
	dir := filepath.Join(work, "data", "r1")
	checkBatchRun(t, dir, 200)
	for _, n := range []int{1, 2, 77, 199} {
		b, err := os.ReadFile(filepath.Join(dir, "workspaces", fmt.Sprint(n), "calls.log"))
		want := fmt.Sprintf("%d-0\n%d-1\n", n, n)
		if n%7 == 0 {
			want = fmt.Sprintf("%d-1\n", n)
		}
		if err != nil || string(b) != want {
			t.Errorf("workspace of prompt %d: calls.log = %q, %v; want %q", n, b, err, want)
		}
	}
	st, err := session.Open(filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions, err := st.List(context.Background(), session.ListOptions{Source: "batch", Limit: -1})
	if err != nil || len(sessions) != 200 {
		t.Errorf("%d batch sessions stored (%v), want 200", len(sessions), err)
	}
	// The run is done: starting it again without --resume is refused.
	r = run(t, batchCmd(home, work, "--dataset", ds, "--run-name", "r1", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"))
	if r.code != 2 || !contains(r.stderr, "already holds trajectories", "--resume") {
		t.Errorf("rerun without --resume: exit %d, stderr %s", r.code, r.stderr)
	}
}

// A batch SIGKILLed half-way and resumed runs only what had not
// finished: each prompt ends up in the trajectories exactly once.
func TestBatchKilledAndResumedWritesEachPromptOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // the killed process's calls may end half-way
	srv.Handle(batchScript(15 * time.Millisecond))
	home, work := batchDirs(t)
	ds := writeDataset(t, work, 200)
	args := []string{"--dataset", ds, "--run-name", "r2", "--workers", "8", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	cmd := batchCmd(home, work, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	traj := filepath.Join(work, "data", "r2", batch.TrajectoriesFile)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(traj)
		if strings.Count(string(b), "\n") >= 80 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the batch never got half-way")
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	before := len(readEntries(t, traj))
	if before >= 200 {
		t.Fatalf("the batch finished (%d) before it was killed", before)
	}

	r := run(t, batchCmd(home, work, append(args, "--resume")...))
	if r.code != 0 || !contains(r.stderr, fmt.Sprintf("resuming r2: %d of 200 prompts already done", before)) ||
		!contains(r.stdout, fmt.Sprintf("200/200 prompts have trajectories (200 completed, 0 partial, 0 failed); %d ran now", 200-before)) {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	checkBatchRun(t, filepath.Join(work, "data", "r2"), 200)
}

// Lines that cannot run are reported one by one, in errors.jsonl and in
// the exit status, and the others run.
func TestBatchRecordsPromptsThatCannotRun(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(batchScript(0))
	home, work := batchDirs(t)
	ds := filepath.Join(work, "mixed.jsonl")
	writePNG(t, filepath.Join(work, "cat.png"))
	// Model m has no vision: its prompt with an image cannot run.
	lines := "{\"prompt\": \"task 5\"}\nnot json\n{\"prompt\": \"task 10\", \"image\": \"cat.png\"}\n{\"text\": \"no prompt\"}\n{\"prompt\": \"task 15\", \"docker_image\": \"python:3.12\"}\n"
	if err := os.WriteFile(ds, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, batchCmd(home, work, "--dataset", ds, "--run-name", "mixed", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"))
	if r.code != 1 || !contains(r.stdout, "1/5 prompts have trajectories", "4 errors, 4 remaining") || !contains(r.stderr, "4 prompts could not run", "errors.jsonl", "--resume") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(work, "data", "mixed", batch.ErrorsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec batch.ErrorRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		got[rec.PromptIndex] = rec.Error
	}
	want := map[int]string{1: "dataset line 2 is not a JSON object", 2: "cannot see the 1 image(s)", 3: `dataset line 4 has no "prompt" field`, 4: "container image"}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("error of prompt %d = %q, want it to say %q", i, got[i], w)
		}
	}
	if st := readStats(t, filepath.Join(work, "data", "mixed")); st.Errors != 4 || st.Completed != 1 {
		t.Errorf("statistics: errors %d completed %d, want 4 and 1", st.Errors, st.Completed)
	}
}

// On a terminal the progress is one bar redrawn in place: done, failed,
// rate and ETA.
func TestBatchShowsAProgressBarOnATerminal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(batchScript(0))
	home, work := batchDirs(t)
	ds := writeDataset(t, work, 20)
	master, slave := openPTY(t)
	defer master.Close()
	cmd := batchCmd(home, work, "--dataset", ds, "--run-name", "tty", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	cmd.Stderr = slave
	var screen strings.Builder
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			screen.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	out, err := cmd.Output()
	slave.Close()
	<-read
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, screen.String())
	}
	s := screen.String()
	if !contains(s, "\r\033[K[", "20/20 done · 0 failed · 0 errors · ", "/s · ETA 0s") || strings.Contains(s, "] prompt ") {
		t.Errorf("terminal output %q", s)
	}
}

// writePNG writes a 2x2 PNG image.
func writePNG(t *testing.T, path string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A dataset line's image (a path beside the dataset) goes with its
// prompt to a model with vision; the trajectory keeps the text.
func TestBatchSendsAPromptsImage(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(batchScript(0))
	home, work := batchDirs(t)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  default: m\n  vision: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, filepath.Join(work, "set"))
	writePNG(t, filepath.Join(work, "set", "cat.png"))
	ds := filepath.Join(work, "set", "p.jsonl")
	if err := os.WriteFile(ds, []byte(`{"prompt": "task 5", "image": "cat.png"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, batchCmd(home, work, "--dataset", ds, "--run-name", "img", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var images []llm.Image
	for _, m := range reqs[0].Messages() {
		images = append(images, m.Images...)
	}
	if len(images) != 1 || images[0].MediaType != "image/png" {
		t.Errorf("the request carried images %+v, want the PNG", images)
	}
	e := readEntries(t, filepath.Join(work, "data", "img", batch.TrajectoriesFile))
	if len(e) != 1 || !e[0].Completed || e[0].Conversations[1].Value != "task 5" {
		t.Errorf("trajectory %+v", e)
	}
}
