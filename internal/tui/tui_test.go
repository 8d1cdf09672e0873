package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
)

const answerMD = "# Results\n\nThe **bold** claim, and a list:\n\n- first item\n- second item\n\n```go\nfunc main() {}\n```\n"

func TestAPromptStreamsToARenderedAnswer(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // the title
	srv.Enqueue(llmtest.Reply{Reasoning: "Consider the question.", Text: answerMD})
	h := newHarness(t, srv, setup{})
	h.say("what did you find?")
	h.idle()
	got := h.conversation()
	for _, want := range []string{"› what did you find?", "Results", "The bold claim", "• first item", "func main() {}", "Consider the question."} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "**bold**") || strings.Contains(got, "```") {
		t.Errorf("markdown shown raw:\n%s", got)
	}
	if lastUser(chatRequests(srv)[0]) != "what did you find?" {
		t.Fatalf("sent %q", lastUser(chatRequests(srv)[0]))
	}
}

func TestStreamRendersFinishedBlocksOnceAndReflowsOnResize(t *testing.T) {
	var md markdown
	s := &stream{}
	s.add("First paragraph with **bold** text.\n\n```\ncode\n\nmore code\n```\n")
	s.commit(&md, 60)
	if len(s.stable) == 0 || s.committed == 0 {
		t.Fatalf("the finished paragraph was not committed: %+v", s)
	}
	before := len(s.stable)
	// A blank line inside a fence does not end the block.
	s.add("\nSecond paragraph still arriving")
	s.commit(&md, 60)
	if len(s.stable) <= before {
		t.Fatalf("the fenced block was not committed after its fence closed")
	}
	if !s.renderTail(&md, 60) || s.renderTail(&md, 60) {
		t.Fatal("the tail renders when it changed, and only then")
	}
	long := strings.Repeat("word ", 60)
	s.add(" " + long)
	s.renderTail(&md, 60)
	for _, l := range s.lines() {
		if w := len([]rune(stripANSI(l))); w > 60 {
			t.Fatalf("line of %d cells at width 60: %q", w, l)
		}
	}
	s.commit(&md, 30)
	s.renderTail(&md, 30)
	for _, l := range s.lines() {
		if w := len([]rune(stripANSI(l))); w > 30 {
			t.Fatalf("line of %d cells after resizing to 30: %q", w, l)
		}
	}
}

func TestResizeReflowsTheConversation(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: strings.Repeat("reflowing words ", 40)})
	h := newHarness(t, srv, setup{})
	h.say("talk")
	h.idle()
	h.update(tea.WindowSizeMsg{Width: 40, Height: 30})
	for _, l := range strings.Split(h.conversation(), "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Fatalf("a line of %d cells on a 40-column terminal: %q", w, l)
		}
	}
	if !strings.Contains(h.conversation(), "reflowing words") {
		t.Fatal("the answer is gone")
	}
}

func TestSlashCommandsRunWithoutTheModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHarness(t, srv, setup{})
	h.say("/help")
	h.idle()
	if got := h.conversation(); !strings.Contains(got, "/model [provider:]name") || !strings.Contains(got, "/rollback [N]") {
		t.Fatalf("/help:\n%s", got)
	}
	h.say("/modle x")
	h.idle()
	if got := h.conversation(); !strings.Contains(got, "did you mean /model?") {
		t.Fatalf("unknown command:\n%s", got)
	}
	h.say("/re")
	h.idle()
	if got := h.conversation(); !strings.Contains(got, "/re could be /reload-mcp, /reset, /resume, /retry") {
		t.Fatalf("ambiguous prefix:\n%s", got)
	}
	if n := requestsN(srv); n != 0 {
		t.Fatalf("commands reached the model: %d requests", n)
	}
}

func TestTabCompletesCommands(t *testing.T) {
	h := newHarness(t, llmtest.NewServer(t), setup{})
	h.typeText("/mod")
	h.press(tab)
	if v := h.m.input.Value(); v != "/model " {
		t.Fatalf("completed to %q", v)
	}
	h.m.input.Reset()
	h.typeText("/re")
	h.press(tab)
	if !strings.Contains(h.screen(), "/resume") || !strings.Contains(h.screen(), "/retry") {
		t.Fatalf("candidates not shown:\n%s", h.screen())
	}
}

// blocking answers requests only when the test says so.
type blocking struct {
	release chan string
	entered chan string // the last user message of each request, as it arrives
}

func blockingServer(t *testing.T) (*llmtest.Server, *blocking) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	b := &blocking{release: make(chan string, 8), entered: make(chan string, 8)}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) }) // before the server closes
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(lastUser(r), "Write the title") {
			return llmtest.Reply{Text: "a title"}
		}
		b.entered <- lastUser(r)
		select {
		case text := <-b.release:
			return llmtest.Reply{Text: text}
		case <-done:
			return llmtest.Reply{Text: "gone"}
		}
	})
	return srv, b
}

// Text typed while a turn runs is queued by default (busy_input_mode
// unset), and with steer, which the terminal UI does not do.
func TestTypingDuringATurnIsQueuedAndSentAfter(t *testing.T) {
	for _, mode := range []string{"", "steer"} {
		t.Run("mode="+mode, func(t *testing.T) {
			srv, b := blockingServer(t)
			h := newHarness(t, srv, setup{cfg: func(c *config.Config) { c.Display.BusyInputMode = mode }})
			h.say("first question")
			if got := <-b.entered; got != "first question" {
				t.Fatalf("first request carried %q", got)
			}
			h.say("second question")
			if !strings.Contains(h.screen(), "queued (1): second question") {
				t.Fatalf("the queue is not shown:\n%s", h.screen())
			}
			select {
			case got := <-b.entered:
				t.Fatalf("%q was sent during the turn", got)
			default:
			}
			b.release <- "first answer"
			if got := receive(h, "the second request", b.entered); got != "second question" {
				t.Fatalf("the next request carried %q", got)
			}
			b.release <- "second answer"
			h.until("both answers", func() bool { return strings.Contains(h.conversation(), "second answer") })
			h.idle()
			var users []string
			for _, r := range chatRequests(srv) {
				users = append(users, lastUser(r))
			}
			if !strings.Contains(strings.Join(users, "|"), "first question|second question") {
				t.Fatalf("requests %q", users)
			}
			if got := h.conversation(); strings.Index(got, "first answer") > strings.Index(got, "› second question") {
				t.Fatalf("the queued message landed in the middle of the answer:\n%s", got)
			}
		})
	}
}

func TestBusyInputModeInterruptStopsTheTurnAndSendsAtOnce(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "never", Hang: true}, llmtest.Reply{Text: "the new answer"})
	h := newHarness(t, srv, setup{cfg: func(c *config.Config) { c.Display.BusyInputMode = "interrupt" }})
	h.say("slow question")
	<-srv.Hanging()
	h.say("never mind, this instead")
	h.until("the new answer", func() bool { return strings.Contains(h.conversation(), "the new answer") })
	if got := lastUser(chatRequests(srv)[1]); got != "never mind, this instead" {
		t.Fatalf("sent %q", got)
	}
}

func TestCtrlCInterruptsTheTurnAndASecondQuits(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "never", Hang: true})
	h := newHarness(t, srv, setup{})
	h.say("think forever")
	<-srv.Hanging()
	h.press(ctrlC)
	h.until("the interrupted turn", func() bool { return h.m.running == "" })
	if !strings.Contains(h.conversation(), "Interrupted.") || h.quit {
		t.Fatalf("after one Ctrl-C:\n%s", h.screen())
	}
	msgs := h.conv().History()
	if len(msgs) != 2 || msgs[1].Content != agent.InterruptedNote {
		t.Fatalf("history after the interrupt %+v", msgs)
	}
	h.press(ctrlC)
	h.until("quit", func() bool { return h.quit })
}

func TestCtrlDOnAnEmptyLineQuits(t *testing.T) {
	h := newHarness(t, llmtest.NewServer(t), setup{})
	h.typeText("x")
	h.press(ctrlD)
	if h.quit {
		t.Fatal("Ctrl-D with text quit")
	}
	h.m.input.Reset()
	h.press(ctrlD)
	h.until("quit", func() bool { return h.quit })
}

func TestMultiLineInputAndLargePasteAreSentIntact(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	h := newHarness(t, srv, setup{})
	h.typeText("line one")
	h.press(shiftEnt)
	h.typeText("line two")
	h.press(ctrlJ)
	h.typeText("line three")
	h.press(enter)
	h.idle()
	if got := lastUser(chatRequests(srv)[0]); got != "line one\nline two\nline three" {
		t.Fatalf("sent %q", got)
	}
	var big strings.Builder
	for i := range 12000 {
		fmt.Fprintf(&big, "\trow %d\t  spaced  \n", i)
	}
	h.typeText("look: ")
	h.update(tea.PasteMsg{Content: big.String()})
	if !strings.Contains(h.screen(), "[paste #1: 12001 lines") {
		t.Fatalf("placeholder not shown:\n%s", h.screen())
	}
	h.press(enter)
	h.idle()
	// Every line, tab and inner space arrives; only the message's trailing
	// blank is dropped on the way to the provider.
	if got := lastUser(chatRequests(srv)[1]); got != strings.TrimRight("look: "+big.String(), " \n") {
		t.Fatalf("the paste changed on its way: %d bytes sent, %d pasted: ends %q", len(got), len(big.String())+6, got[len(got)-30:])
	}
}

func TestInputHistoryIsKeptAcrossSessions(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	path := filepath.Join(t.TempDir(), "input_history.jsonl")
	h := newHarness(t, srv, setup{hist: path})
	h.say("the first thing\nover two lines")
	h.idle()
	h.say("/usage")
	h.idle()
	again := newHarness(t, srv, setup{hist: path})
	again.press(up)
	if v := again.m.input.Value(); v != "/usage" {
		t.Fatalf("Up gave %q", v)
	}
	again.press(up)
	if v := again.m.input.Value(); v != "the first thing\nover two lines" {
		t.Fatalf("second Up gave %q", v)
	}
}

func TestApprovalModalIsKeyboardDriven(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	victim := filepath.Join(t.TempDir(), "victim")
	os.MkdirAll(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "f"), []byte("x"), 0o644)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"rm -rf ` + victim + `"}`}}},
		llmtest.Reply{Text: "could not"})
	h := newHarness(t, srv, setup{})
	h.say("clean up")
	h.until("the approval modal", func() bool { return h.m.modal != nil })
	scr := h.screen()
	for _, want := range []string{"Dangerous command", "rm -rf " + victim, "recursive", "[o] once", "[s] session", "[a] always", "[d] deny"} {
		if !strings.Contains(scr, want) {
			t.Errorf("modal lacks %q:\n%s", want, scr)
		}
	}
	h.press(tea.KeyPressMsg{Code: tea.KeyRight}) // from deny round to once…
	h.press(tea.KeyPressMsg{Code: tea.KeyLeft})  // …and back: Enter denies
	h.press(enter)
	h.idle()
	if _, err := os.Stat(filepath.Join(victim, "f")); err != nil {
		t.Fatalf("denied, yet the victim is gone: %v", err)
	}
	if got := h.conversation(); !strings.Contains(got, "denied: rm -rf") || !strings.Contains(got, "✗ terminal") {
		t.Fatalf("the denial is not shown:\n%s", got)
	}
}

func TestApprovalFailsClosedOnTimeout(t *testing.T) {
	h := newHarness(t, llmtest.NewServer(t), setup{cfg: func(c *config.Config) { c.Approvals.Timeout = 1 }})
	fire := make(chan time.Time)
	ap := approval.New(approval.Options{Ask: h.m.bridge.Approve, Timeout: time.Second, After: func(time.Duration) <-chan time.Time { return fire }})
	done := make(chan error, 1)
	go func() {
		done <- ap.Approve(context.Background(), tool.ApprovalRequest{Tool: "terminal", Command: "rm -rf /var/tmp/x", SessionID: "s"})
	}()
	h.until("the modal", func() bool { return h.m.modal != nil })
	h.now.advance(2 * time.Second)
	fire <- time.Now()
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("a timed-out approval returned %v", err)
	}
	h.until("the modal to close", func() bool { return h.m.modal == nil })
	if !strings.Contains(h.conversation(), "no answer in time: denied") {
		t.Fatalf("the timeout is not shown:\n%s", h.conversation())
	}
	// A key answers an open question; Esc denies.
	for _, tc := range []struct {
		key  tea.KeyPressMsg
		want approval.Choice
	}{{letter('o'), approval.Once}, {letter('s'), approval.Session}, {esc, approval.Deny}} {
		reply := make(chan approval.Choice, 1)
		go func() {
			c, _ := h.m.bridge.Approve(context.Background(), approval.Prompt{Command: "rm -rf /x"})
			reply <- c
		}()
		h.until("the modal", func() bool { return h.m.modal != nil })
		h.press(tc.key)
		if c := <-reply; c != tc.want {
			t.Fatalf("key %v answered %v", tc.key, c)
		}
	}
}

func TestClarifyTakesAChoiceOrFreeText(t *testing.T) {
	h := newHarness(t, llmtest.NewServer(t), setup{})
	ask := func(choices []string) chan string {
		out := make(chan string, 1)
		go func() {
			a, err := h.m.bridge.Clarify(context.Background(), "Which color?", choices)
			if err != nil {
				a = "error: " + err.Error()
			}
			out <- a
		}()
		h.until("the question", func() bool { return h.m.modal != nil })
		return out
	}
	a := ask([]string{"red", "green", "blue"})
	if !strings.Contains(h.screen(), "Which color?") || !strings.Contains(h.screen(), "2) green") {
		t.Fatalf("question not shown:\n%s", h.screen())
	}
	h.press(tea.KeyPressMsg{Code: tea.KeyDown})
	h.press(enter)
	if got := <-a; got != "green" {
		t.Fatalf("arrow and Enter answered %q", got)
	}
	a = ask([]string{"red", "green", "blue"})
	h.say("3")
	if got := <-a; got != "blue" {
		t.Fatalf("a number answered %q", got)
	}
	a = ask(nil)
	h.say("turquoise, please")
	if got := <-a; got != "turquoise, please" {
		t.Fatalf("free text answered %q", got)
	}
	a = ask([]string{"x"})
	h.press(esc)
	if got := <-a; !strings.HasPrefix(got, "error:") {
		t.Fatalf("Esc answered %q", got)
	}
}

func TestResumedSessionShowsItsLastTurns(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + lastUser(r)} })
	home := t.TempDir()
	first := newHarness(t, srv, setup{home: home})
	for i := 1; i <= 5; i++ {
		first.say(fmt.Sprintf("question %d", i))
		first.idle()
	}
	id := first.conv().SessionID()
	first.conv().End("user_exit")
	first.rt.Close()
	h := newHarness(t, srv, setup{home: home, conv: func(o *app.ConversationOptions) { o.Resume = id }})
	got := h.conversation()
	for _, want := range []string{"resumed session " + id, "› question 3", "answer to question 5", "earlier messages not shown", "you are here"} {
		if !strings.Contains(got, want) {
			t.Errorf("recap lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "question 2") {
		t.Errorf("the recap shows more than the last turns:\n%s", got)
	}
}

func TestStatusLineShowsModelTokensContextSandboxAndFallback(t *testing.T) {
	primary, backup := llmtest.NewServer(t), llmtest.NewServer(t)
	primary.AllowUnexpected()
	backup.AllowUnexpected()
	primary.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Error(401, "") })
	backup.Handle(func(*llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "from the backup", Usage: &llm.Usage{InputTokens: 2500, OutputTokens: 40, TotalTokens: 2540}}
	})
	h := newHarness(t, primary, setup{cfg: func(c *config.Config) {
		c.FallbackProviders = []config.FallbackProvider{{Provider: "custom", Model: "backup-model", BaseURL: backup.URL(), KeyEnv: "BACKUP_KEY"}}
	}, opts: func(o *app.Options) {
		o.Getenv = func(k string) string { return map[string]string{"BACKUP_KEY": "sk-b"}[k] }
	}})
	line := func() string { s := strings.Split(h.screen(), "\n"); return s[len(s)-1] }
	if l := line(); !strings.Contains(l, "test-model") || !strings.Contains(l, "custom") || !strings.Contains(l, "workspace-write") || strings.Contains(l, "FALLBACK") {
		t.Fatalf("status before: %q", l)
	}
	h.say("hello")
	h.until("the status after the turn", func() bool { return strings.Contains(line(), "↑2.5k") })
	h.idle()
	l := line()
	for _, want := range []string{"backup-model", "FALLBACK", "↑2.5k", "↓40", "ctx "} {
		if !strings.Contains(l, want) {
			t.Errorf("status lacks %q: %q", want, l)
		}
	}
}

// On the ssh backend the status line names the host in place of the
// local sandbox, which does not confine the commands there.
func TestStatusLineNamesARemoteBackend(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	h := newHarness(t, srv, setup{cfg: func(c *config.Config) {
		c.Terminal.Backend = "ssh"
		c.Terminal.SSH = config.SSH{Host: "build.example.org", Port: 2222, User: "ci", Cwd: "/srv/app"}
	}})
	s := strings.Split(h.screen(), "\n")
	if l := s[len(s)-1]; !strings.Contains(l, "ssh ci@build.example.org:2222 (no local sandbox)") || strings.Contains(l, "workspace-write") {
		t.Fatalf("status: %q", l)
	}
}

func TestToolProgressModes(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		want, nots []string
	}{
		{"off", nil, []string{"terminal echo"}},
		{"new", []string{"terminal echo one"}, []string{"terminal echo two"}},
		{"all", []string{"✓ terminal echo one", "✓ terminal echo two"}, []string{"│ two"}},
		{"verbose", []string{"✓ terminal echo one", "│ two"}, nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.AllowUnexpected()
			srv.Enqueue(
				llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "a", Name: "terminal", Arguments: `{"command":"echo one"}`}}},
				llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "b", Name: "terminal", Arguments: `{"command":"echo two"}`}}},
				llmtest.Reply{Text: "done"})
			h := newHarness(t, srv, setup{cfg: func(c *config.Config) { c.Display.ToolProgress = tc.mode }})
			h.say("run them")
			h.idle()
			got := h.conversation()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.nots {
				if strings.Contains(got, n) {
					t.Errorf("shows %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestReasoningIsDimmedAndCollapsible(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Reasoning: "step one of my thinking\nstep two of my thinking", Text: "the answer"})
	h := newHarness(t, srv, setup{cfg: func(c *config.Config) { f := false; c.Display.ShowReasoning = &f }})
	h.say("think")
	h.idle()
	got := h.conversation()
	if !strings.Contains(got, "▸ thinking: step one") || strings.Contains(got, "step two") {
		t.Fatalf("collapsed reasoning:\n%s", got)
	}
	h.press(ctrlO)
	if got := h.conversation(); !strings.Contains(got, "step two of my thinking") {
		t.Fatalf("expanded reasoning:\n%s", got)
	}
}

func TestShellEscapeRunsThroughTheTerminalTool(t *testing.T) {
	srv := llmtest.NewServer(t)
	h := newHarness(t, srv, setup{})
	h.say("!echo shell-said-hi")
	h.idle()
	if got := h.conversation(); !strings.Contains(got, "shell-said-hi") || !strings.Contains(got, "✓ terminal echo shell-said-hi") {
		t.Fatalf("shell output:\n%s", got)
	}
	if requestsN(srv) != 0 || len(h.conv().History()) != 0 {
		t.Fatal("the shell escape reached the model or the history")
	}
	h.denyARemoval(t)
}

// denyARemoval types a shell escape removing a directory, which asks;
// the modal's deny keeps the directory.
func (h *harness) denyARemoval(t *testing.T) {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "keep")
	os.WriteFile(victim, []byte("x"), 0o644)
	h.say("!rm -rf " + filepath.Dir(victim))
	h.until("the approval modal", func() bool { return h.m.modal != nil })
	h.press(letter('d'))
	h.idle()
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("denied, yet gone: %v", err)
	}
}

func TestUndoAndNewShowOnScreen(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + lastUser(r)} })
	h := newHarness(t, srv, setup{})
	h.say("keep me")
	h.idle()
	h.say("drop me")
	h.idle()
	h.say("/undo")
	h.idle()
	if got := h.conversation(); strings.Contains(got, "answer to drop me") || !strings.Contains(got, "answer to keep me") {
		t.Fatalf("after /undo:\n%s", got)
	}
	h.say("/retry")
	h.idle()
	if got := lastUser(chatRequests(srv)[len(chatRequests(srv))-1]); got != "keep me" {
		t.Fatalf("/retry sent %q", got)
	}
	h.say("/clear")
	h.idle()
	if got := h.conversation(); strings.Contains(got, "keep me") {
		t.Fatalf("after /clear:\n%s", got)
	}
}

func TestNewAndResumeKeepTheUIOnTheConversationTheyOpen(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + lastUser(r)} })
	h := newHarness(t, srv, setup{})
	h.say("first question")
	h.idle()
	first := h.conv().SessionID()
	h.say("/new")
	h.idle()
	if h.conv().SessionID() == first {
		t.Fatal("/new kept the session")
	}
	// The new conversation's answer streams in: the UI observes it.
	h.say("second question")
	h.until("the answer in the new session", func() bool { return strings.Contains(h.conversation(), "answer to second question") })
	h.idle()
	// Its dangerous commands ask the UI, as the first conversation's did.
	h.denyARemoval(t)
	h.say("/resume " + first)
	h.idle()
	if got := h.conversation(); h.conv().SessionID() != first || !strings.Contains(got, "resumed session "+first) || !strings.Contains(got, "answer to first question") {
		t.Fatalf("after /resume (session %s):\n%s", h.conv().SessionID(), got)
	}
	h.say("third question")
	h.until("the answer in the resumed session", func() bool { return strings.Contains(h.conversation(), "answer to third question") })
	h.idle()
	reqs := chatRequests(srv)
	var sawFirst bool
	for _, m := range reqs[len(reqs)-1].Messages() {
		sawFirst = sawFirst || m.Content == "first question"
	}
	if !sawFirst {
		t.Fatal("the resumed conversation's request lacks its history")
	}
}

func stripANSI(s string) string { return ansiStrip(s) }

func TestTheUIPaintsBeforeTheRuntimeIsReadyAndQueuesTyping(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answer to " + lastUser(r)} })
	h := newHarness(t, srv, setup{})
	c := h.conv()
	h.m = New(Options{Version: "test", Now: h.now.Now}, h.send) // no conversation yet
	h.update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := h.screen(); !strings.Contains(s, "starting") || !strings.Contains(s, "hermes test") {
		t.Fatalf("first frame:\n%s", s)
	}
	h.say("typed early")
	h.say("/help")
	if n := requestsN(srv); n != 0 || !strings.Contains(h.screen(), "queued (2): typed early") {
		t.Fatalf("before the runtime: %d requests\n%s", n, h.screen())
	}
	c.Observe(h.m.feed.observe)
	h.update(readyMsg{conv: c, banner: []string{"sandbox line"}})
	h.until("the early message's answer", func() bool { return strings.Contains(h.conversation(), "answer to typed early") })
	h.idle()
	if got := h.conversation(); !strings.Contains(got, "sandbox line") || !strings.Contains(got, "/model [provider:]name") {
		t.Fatalf("after start:\n%s", got)
	}
	failed := New(Options{Version: "test", Now: h.now.Now}, func(tea.Msg) {})
	if _, cmd := failed.Update(readyMsg{err: errNoUI}); cmd == nil || failed.startErr != errNoUI {
		t.Fatal("a failed start does not quit with its error")
	}
}
