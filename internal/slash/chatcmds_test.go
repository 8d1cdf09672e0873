package slash

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// capHost is a fakeHost that also queues, picks and runs background
// tasks, as the terminal UI does.
type capHost struct {
	*fakeHost
	queue []string
	pick  func(items []PickItem) (int, error)
	picks [][]PickItem
	bg    Background
	notes chan string
}

func (h *capHost) Queue(m string)          { h.queue = append(h.queue, m) }
func (h *capHost) Queued() []string        { return append([]string(nil), h.queue...) }
func (h *capHost) Background() *Background { return &h.bg }
func (h *capHost) Print(k Kind, s string)  { h.fakeHost.Print(k, s); h.notes <- s }
func (h *capHost) setBusy(b bool)          { h.busy = b }
func (h *capHost) lastPrinted() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.printed[len(h.printed)-1]
}
func (h *capHost) Pick(_ context.Context, _ string, items []PickItem) (int, error) {
	h.picks = append(h.picks, items)
	return h.pick(items)
}

func withCaps(h *fakeHost) *capHost { return &capHost{fakeHost: h, notes: make(chan string, 100)} }

// waitNote waits for a printed text holding want: background tasks print
// from their own goroutine.
func (h *capHost) waitNote(t *testing.T, want string) string {
	t.Helper()
	timeout := time.After(30 * time.Second) // a bound on a hang, not a pause
	for {
		select {
		case s := <-h.notes:
			if strings.Contains(s, want) {
				return s
			}
		case <-timeout:
			t.Fatalf("no note holding %q; printed:\n%s", want, h.out())
		}
	}
}

func storedCount(t *testing.T, h *fakeHost, id string) int {
	t.Helper()
	msgs, err := h.rt.Store().Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return len(msgs)
}

func runOn(t *testing.T, r *Registry, h Host, line string) error {
	t.Helper()
	handled, err := r.Dispatch(context.Background(), h, line)
	if !handled {
		t.Fatalf("%q was not taken for a command", line)
	}
	return err
}

// /steer during a turn reaches the model's next request, carried by the
// result of the tool call that was running; not the request before it.
func TestSteerReachesTheRunningTurnAfterItsNextToolCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	r, h := chat(t, srv, "")
	h.busy = true
	var steerErr error
	// The steer is typed while the turn's first model call is out.
	first := true
	srv.Handle(func(req *llmtest.Request) llmtest.Reply {
		if first {
			first = false
			_, steerErr = r.Dispatch(context.Background(), h, "/steer answer in French")
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo working"}`}}}
		}
		return llmtest.Reply{Text: "fini"}
	})
	res, err := h.Conversation().Run(context.Background(), agent.Input{Message: "list the files"})
	if err != nil || steerErr != nil {
		t.Fatal(err, steerErr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if strings.Contains(lastContent(reqs[0]), "French") {
		t.Fatal("the steer reached the request before the tool call")
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "working") || !strings.Contains(got, "answer in French") {
		t.Fatalf("the request after the tool call carries %q", got)
	}
	if len(res.PendingSteer) != 0 || !strings.Contains(h.out(), "after its next tool call") {
		t.Fatalf("pending %q, printed %s", res.PendingSteer, h.out())
	}
}

func lastContent(r *llmtest.Request) string {
	m := r.Messages()
	return m[len(m)-1].Content
}

// A steer the turn cannot take any more is queued where the surface
// queues, and refused with a reason where it does not; with nothing
// running the text is sent as a message.
func TestSteerWhenNoTurnTakesIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	r, fh := chat(t, srv, "")
	if err := run(t, r, fh, "/steer also the tests"); err != nil || len(fh.sent) != 1 || fh.sent[0] != "also the tests" {
		t.Fatalf("idle /steer: %v sent %q", err, fh.sent)
	}
	if !strings.Contains(fh.out(), "Nothing is running") {
		t.Fatalf("idle /steer did not say what it did: %s", fh.out())
	}
	fh.busy = true // a shell command runs, say: no turn takes the text
	if err := run(t, r, fh, "/steer later"); err == nil || !strings.Contains(err.Error(), "ending") {
		t.Fatalf("/steer with no steerable turn and no queue: %v", err)
	}
	h := withCaps(fh)
	if err := runOn(t, r, h, "/steer later"); err != nil || len(h.queue) != 1 || h.queue[0] != "later" {
		t.Fatalf("/steer into the queue: %v %q", err, h.queue)
	}
	if err := runOn(t, r, h, "/steer"); err == nil {
		t.Fatal("/steer without text was taken")
	}
}

// /queue waits for the running turn (in order, listed by /queue alone
// and /status), and sends at once when nothing runs.
func TestQueueWaitsForTheTurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	r, fh := chat(t, srv, "")
	h := withCaps(fh)
	if err := runOn(t, r, h, "/queue right away"); err != nil || len(h.sent) != 1 || len(h.queue) != 0 {
		t.Fatalf("idle /queue: %v sent %q queue %q", err, h.sent, h.queue)
	}
	h.setBusy(true)
	runOn(t, r, h, "/queue first")
	runOn(t, r, h, "/queue second")
	if len(h.queue) != 2 || h.queue[0] != "first" || h.queue[1] != "second" || len(h.sent) != 1 {
		t.Fatalf("queue %q sent %q", h.queue, h.sent)
	}
	if err := runOn(t, r, h, "/queue"); err != nil || !strings.Contains(h.lastPrinted(), "1. first") || !strings.Contains(h.lastPrinted(), "2. second") {
		t.Fatalf("/queue alone: %v %s", err, h.lastPrinted())
	}
	if err := runOn(t, r, h, "/status"); err != nil || !strings.Contains(h.lastPrinted(), "queued    2") {
		t.Fatalf("/status: %v %s", err, h.lastPrinted())
	}
	// A surface without a queue says so rather than dropping the text.
	if err := run(t, r, fh, "/queue third"); err == nil || !strings.Contains(err.Error(), "not available here") {
		t.Fatalf("/queue without a queue: %v", err)
	}
}

// /btw answers from the conversation so far and leaves the session and
// the history as they were.
func TestBtwLeavesTheSessionUnchanged(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(req *llmtest.Request) llmtest.Reply {
		if strings.Contains(lastContent(req), "which fruit") {
			return llmtest.Reply{Text: "You said kumquat."}
		}
		return llmtest.Reply{Text: "noted"}
	})
	r, h := chat(t, srv, "")
	ctx := context.Background()
	if _, err := h.Conversation().Chat(ctx, "remember the word kumquat"); err != nil {
		t.Fatal(err)
	}
	id := h.Conversation().SessionID()
	before, hist := storedCount(t, h, id), len(h.Conversation().History())
	if err := run(t, r, h, "/btw which fruit did I name?"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.out(), "You said kumquat.") {
		t.Fatalf("/btw printed %s", h.out())
	}
	last := srv.Requests()[len(srv.Requests())-1].Messages()
	if len(last) < 3 || last[1].Content != "remember the word kumquat" {
		t.Fatalf("the side call did not carry the conversation: %+v", last)
	}
	if after := storedCount(t, h, id); after != before {
		t.Fatalf("/btw stored messages: %d before, %d after", before, after)
	}
	if n := len(h.Conversation().History()); n != hist {
		t.Fatalf("/btw changed the history: %d messages, was %d", n, hist)
	}
	if err := run(t, r, h, "/btw"); err == nil {
		t.Fatal("/btw without a question was taken")
	}
}

// /bg runs a prompt in a session of its own (source bg) and prints its
// answer as a note; /bg lists what runs and /bg stop N interrupts it.
func TestBackgroundTaskAnswersAsANote(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(req *llmtest.Request) llmtest.Reply {
		switch {
		case strings.Contains(lastContent(req), "forever"):
			return llmtest.Reply{Hang: true}
		case strings.Contains(lastContent(req), "survey"):
			return llmtest.Reply{Text: "The survey is done."}
		}
		return llmtest.Reply{Text: "ok"}
	})
	r, fh := chat(t, srv, "")
	if err := run(t, r, fh, "/bg survey the code"); err == nil || !strings.Contains(err.Error(), "not available here") {
		t.Fatalf("/bg on a host without background tasks: %v", err)
	}
	h := withCaps(fh)
	t.Cleanup(h.bg.Close)
	if err := runOn(t, r, h, "/bg survey the code"); err != nil {
		t.Fatal(err)
	}
	h.waitNote(t, "The survey is done.")
	ctx := context.Background()
	rows, err := h.rt.Store().List(ctx, sessionsBySource("bg"))
	if err != nil || len(rows) != 1 {
		t.Fatalf("bg sessions %+v %v", rows, err)
	}
	if msgs, _ := h.rt.Store().Messages(ctx, rows[0].ID); len(msgs) != 2 || msgs[1].Content != "The survey is done." {
		t.Fatalf("the bg session holds %+v", msgs)
	}
	if rows[0].ID == h.Conversation().SessionID() || len(h.Conversation().History()) != 0 {
		t.Fatal("the background task wrote into the chat's session")
	}

	if err := runOn(t, r, h, "/bg think forever"); err != nil {
		t.Fatal(err)
	}
	<-srv.Hanging()
	runOn(t, r, h, "/bg")
	if !strings.Contains(h.lastPrinted(), "1 background task(s) running") || !strings.Contains(h.lastPrinted(), "think forever") {
		t.Fatalf("/bg list: %s", h.lastPrinted())
	}
	if err := runOn(t, r, h, "/bg stop 9"); err == nil {
		t.Fatal("/bg stop of no task succeeded")
	}
	if err := runOn(t, r, h, "/bg stop 2"); err != nil {
		t.Fatal(err)
	}
	h.waitNote(t, "was stopped")
	if got := h.bg.Running(); len(got) != 0 {
		t.Fatalf("still running: %+v", got)
	}
}

// /branch continues in a new session holding a copy of the history, whose
// parent is the original; the original keeps its messages.
func TestBranchForksTheSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	r, h := chat(t, srv, "")
	ctx := context.Background()
	if err := run(t, r, h, "/branch"); err == nil {
		t.Fatal("/branch of an empty session succeeded")
	}
	orig := h.Conversation()
	if _, err := orig.Chat(ctx, "first idea"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/branch second try"); err != nil {
		t.Fatal(err)
	}
	branch := h.Conversation()
	if branch == orig || branch.SessionID() == orig.SessionID() {
		t.Fatal("/branch kept the conversation")
	}
	s, err := h.rt.Store().Get(ctx, branch.SessionID())
	if err != nil || s.ParentID != orig.SessionID() || s.Title != "second try" {
		t.Fatalf("the branch: %+v %v", s, err)
	}
	if _, err := branch.Chat(ctx, "another idea"); err != nil {
		t.Fatal(err)
	}
	if n := storedCount(t, h, branch.SessionID()); n != 4 {
		t.Fatalf("the branch holds %d messages", n)
	}
	if n := storedCount(t, h, orig.SessionID()); n != 2 {
		t.Fatalf("the original holds %d messages after the branch went on", n)
	}
	// The original can be resumed.
	if err := run(t, r, h, "/resume "+orig.SessionID()); err != nil || len(h.Conversation().History()) != 2 {
		t.Fatalf("resuming the original: %v", err)
	}
}

// /status says where the chat stands.
func TestStatusSaysWhereTheChatStands(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	work := t.TempDir()
	r, h := chat(t, srv, work)
	old := Profile
	Profile = func() string { return "work" }
	t.Cleanup(func() { Profile = old })
	h.Conversation().Chat(context.Background(), "hi")
	run(t, r, h, "/title status check")
	if err := run(t, r, h, "/status"); err != nil {
		t.Fatal(err)
	}
	out := h.printed[len(h.printed)-1]
	for _, want := range []string{h.Conversation().SessionID(), `"status check"`, "first-model on custom", "profile   work",
		"messages", "context", "sandbox   ", "directory " + work, "idle"} {
		if !strings.Contains(out, want) {
			t.Errorf("/status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "queued") || strings.Contains(out, "background") {
		t.Errorf("/status speaks of a queue or background tasks the surface does not have:\n%s", out)
	}
}

// /diff shows what the agent wrote since the session began, from the
// checkpoint taken before its first change.
func TestDiffShowsWhatTheAgentChanged(t *testing.T) {
	work := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(work, 0o755)
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("one\ntwo\n"), 0o644)
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	b, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "one\nTWO\n"})
	c, _ := json.Marshal(map[string]string{"path": "added.md", "content": "fresh file\n"})
	r, h := chat(t, srv, work)
	if err := run(t, r, h, "/diff"); err != nil || !strings.Contains(h.out(), "No changes") {
		t.Fatalf("/diff before any change: %v %s", err, h.out())
	}
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: string(b)}, {Name: "write_file", Arguments: string(c)}}},
		llmtest.Reply{Text: "rewrote it"})
	if _, err := h.Conversation().Chat(context.Background(), "change the notes"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/diff"); err != nil {
		t.Fatal(err)
	}
	out := h.printed[len(h.printed)-1]
	for _, want := range []string{"2 file(s) changed", "modified notes.txt", "added    added.md", "-two", "+TWO", "+fresh file", "--- /dev/null"} {
		if !strings.Contains(out, want) {
			t.Errorf("/diff lacks %q:\n%s", want, out)
		}
	}
}

// Without checkpoints, a git workspace is compared with its HEAD.
func TestDiffFallsBackToGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	work := t.TempDir()
	gitRun := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", work, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	gitRun("init", "-q")
	os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n"), 0o644)
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "start")
	srv := llmtest.NewServer(t)
	r, h := chat(t, srv, work)
	off := false
	h.rt.Config().Checkpoints.Enabled = &off // read when a workspace opens: this one has its store already
	os.WriteFile(filepath.Join(work, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(work, "new.txt"), []byte("x\n"), 0o644)
	if err := run(t, r, h, "/diff"); err != nil {
		t.Fatal(err)
	}
	out := h.printed[len(h.printed)-1]
	for _, want := range []string{"git HEAD", "+func main() {}", "untracked new.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("/diff lacks %q:\n%s", want, out)
		}
	}
}

// /resume and /sessions without arguments offer the sessions to pick
// from, and resume the one chosen; a cancelled pick changes nothing.
func TestPickerResumesTheChosenSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	r, fh := chat(t, srv, "")
	ctx := context.Background()
	h := withCaps(fh)
	first := h.Conversation().SessionID()
	h.Conversation().Chat(ctx, "about apples")
	runOn(t, r, h, "/title apples")
	runOn(t, r, h, "/new")
	h.Conversation().Chat(ctx, "about pears")
	second := h.Conversation().SessionID()

	h.pick = func([]PickItem) (int, error) { return -1, ErrPickCancelled }
	if err := runOn(t, r, h, "/resume"); err != nil || h.Conversation().SessionID() != second {
		t.Fatalf("a cancelled pick: %v, on %s", err, h.Conversation().SessionID())
	}
	items := h.picks[0]
	if len(items) != 1 || items[0].Title != "apples" || !strings.Contains(items[0].Detail, "2 msgs") || !strings.Contains(items[0].Detail, "cli") {
		t.Fatalf("the picker offered %+v (the current session is left out)", items)
	}
	h.pick = func(items []PickItem) (int, error) { return 0, nil }
	if err := runOn(t, r, h, "/sessions"); err != nil || h.Conversation().SessionID() != first {
		t.Fatalf("/sessions picked: %v, on %s", err, h.Conversation().SessionID())
	}
	// While a turn runs, /sessions lists instead (resuming waits for it).
	h.setBusy(true)
	n := len(h.picks)
	if err := runOn(t, r, h, "/sessions"); err != nil || len(h.picks) != n || !strings.Contains(h.lastPrinted(), second) {
		t.Fatalf("busy /sessions: %v %s", err, h.lastPrinted())
	}
	// /sessions N is the table.
	h.setBusy(false)
	if err := runOn(t, r, h, "/sessions 5"); err != nil || len(h.picks) != n {
		t.Fatalf("/sessions 5 picked: %v", err)
	}
}

func sessionsBySource(src string) session.ListOptions { return session.ListOptions{Source: src} }

// A background task runs unattended: a command that needs approval is
// refused (the model reads why) and the directory it would remove stays,
// even when the chat itself has yolo on.
func TestBackgroundTaskRefusesDangerousCommands(t *testing.T) {
	work := t.TempDir()
	victim := filepath.Join(work, "build")
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("keep"), 0o644)
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(req *llmtest.Request) llmtest.Reply {
		if m := req.Messages(); m[len(m)-1].Role == llm.RoleTool {
			return llmtest.Reply{Text: "result: " + m[len(m)-1].Content}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf ./build"}`}}}
	})
	r, fh := chat(t, srv, work)
	fh.Conversation().SetYolo(true)
	h := withCaps(fh)
	t.Cleanup(h.bg.Close)
	if err := runOn(t, r, h, "/bg clean up the build"); err != nil {
		t.Fatal(err)
	}
	note := h.waitNote(t, "result: ")
	if !strings.Contains(strings.ToLower(note), "denied") || !strings.Contains(note, "background task") {
		t.Fatalf("the model read %q", note)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Fatalf("the background task removed the directory: %v", err)
	}
}

// A secret the user typed is masked in the side call as in the turn's
// own requests.
func TestBtwMasksSecretsAsTurnsDo(t *testing.T) {
	const secret = "Zx81kLmQ93hTr7Yw-the-providers-key"
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), secret, "first-model"
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "cli", Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := &fakeHost{rt: rt, conv: c}
	if _, err := c.Chat(context.Background(), "my key is "+secret); err != nil {
		t.Fatal(err)
	}
	if err := run(t, Builtin(), h, "/btw is "+secret+" my key?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	side := reqs[len(reqs)-1]
	if !strings.Contains(lastContent(side), "my key?") {
		t.Fatalf("the last request is not the side call: %q", lastContent(side))
	}
	for _, m := range side.Messages() {
		if strings.Contains(m.Content, secret) {
			t.Fatalf("the side call sent the secret in %q", m.Content)
		}
	}
}
