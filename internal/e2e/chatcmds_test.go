package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// chatCmdsProvider answers the in-chat command tests: "hold ..." waits
// for release and then calls a tool, "write the notes" writes notes.txt,
// a side question about the fruit is answered from the history, the
// rest is "answer to ...".
type chatCmdsProvider struct {
	*llmtest.Server
	held    chan struct{}
	gate    chan struct{}
	release func()
}

func newChatCmdsProvider(t *testing.T) *chatCmdsProvider {
	p := &chatCmdsProvider{Server: llmtest.NewServer(t), held: make(chan struct{}, 1), gate: make(chan struct{})}
	var once sync.Once
	p.release = func() { once.Do(func() { close(p.gate) }) }
	t.Cleanup(p.release) // before the server's Close waits for the held request
	p.AllowUnexpected()
	p.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		last := msgs[len(msgs)-1]
		switch {
		case strings.Contains(last.Content, "Write the title for this conversation"):
			return llmtest.Reply{Text: "Untitled chat"}
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "tool said: " + last.Content}
		case strings.HasPrefix(last.Content, "hold"):
			p.held <- struct{}{}
			<-p.gate
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo from-the-tool"}`}}}
		case strings.Contains(last.Content, "write the notes"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: `{"path":"notes.txt","content":"hello notes\n"}`}}}
		case strings.Contains(last.Content, "which fruit"):
			for _, m := range msgs {
				if strings.Contains(m.Content, "kumquat") {
					return llmtest.Reply{Text: "You named the kumquat."}
				}
			}
			return llmtest.Reply{Text: "No fruit was named."}
		}
		return llmtest.Reply{Text: "answer to " + last.Content}
	})
	return p
}

// chats are the conversation's requests, without the title calls.
func (p *chatCmdsProvider) chats() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range p.Requests() {
		if m := r.Messages(); !strings.Contains(m[len(m)-1].Content, "Write the title for this conversation") {
			out = append(out, r)
		}
	}
	return out
}

type storedSession struct {
	ID           string `json:"id"`
	Source       string `json:"source"`
	Title        string `json:"title"`
	ParentID     string `json:"parent_session_id"`
	MessageCount int    `json:"message_count"`
	EndReason    string `json:"end_reason"`
}

func storedSessions(t *testing.T, home string) map[string]storedSession {
	t.Helper()
	r := hermes(t, home, home, "sessions", "list", "--json")
	var list []storedSession
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("sessions list: %v %q %s", err, r.stdout, r.stderr)
	}
	out := map[string]storedSession{}
	for _, s := range list {
		out[s.ID] = s
	}
	return out
}

// lineChat is hermes's line mode with a pipe for its input, read as a
// person would: a line, then what it printed.
type lineChat struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex
	out   bytes.Buffer // stdout and stderr
	read  int          // what waitFor consumed
	done  chan struct{}
	final error
}

func (c *lineChat) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(b)
}

func startLineChat(t *testing.T, home, work string, args ...string) *lineChat {
	t.Helper()
	c := &lineChat{t: t, done: make(chan struct{})}
	c.cmd = exec.Command(hermesBin, args...)
	c.cmd.Dir = work
	c.cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	c.cmd.Stdout, c.cmd.Stderr = c, c
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.final = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		c.in.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

func (c *lineChat) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing %q: %v", line, err)
	}
}

// waitFor polls what hermes printed since the last waitFor until it
// holds every one of wants, and returns it.
func (c *lineChat) waitFor(wants ...string) string {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		s := c.out.String()[c.read:]
		c.mu.Unlock()
		if contains(s, wants...) {
			c.mu.Lock()
			c.read = c.out.Len()
			c.mu.Unlock()
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("hermes never printed %q; since the last step it printed:\n%s", wants, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The line chat's new commands through the binary: /btw leaves the
// session as it was, /bg's answer arrives as a note from a session of its
// own, /diff shows the file the agent wrote, /branch forks, /status says
// where things stand and /resume offers a numbered list.
func TestLineChatCommands(t *testing.T) {
	p := newChatCmdsProvider(t)
	home, work := t.TempDir(), t.TempDir()
	c := startLineChat(t, home, work, "chat", "--provider", "custom", "--base-url", p.URL(), "--model", "m")
	c.waitFor("/help for commands")

	c.send("remember the word kumquat")
	c.waitFor("answer to remember the word kumquat")
	var first string
	for id := range storedSessions(t, home) {
		first = id
	}
	c.send("/btw which fruit did I name?")
	c.waitFor("You named the kumquat.", "not kept in the session")
	if s := storedSessions(t, home)[first]; s.MessageCount != 2 {
		t.Fatalf("after /btw the session holds %d messages", s.MessageCount)
	}

	c.send("/bg summarise the project")
	out := c.waitFor("Background task 1 finished", "answer to summarise the project")
	if !strings.Contains(out, "Background task 1 started") {
		t.Fatalf("/bg did not say it started:\n%s", out)
	}
	var bg storedSession
	for _, s := range storedSessions(t, home) {
		if s.Source == "bg" {
			bg = s
		}
	}
	if bg.ID == "" || bg.MessageCount != 2 || bg.EndReason != "bg_done" {
		t.Fatalf("the background session: %+v", bg)
	}

	c.send("/diff")
	c.waitFor("No changes")
	c.send("please write the notes")
	c.waitFor("tool said:")
	c.send("/diff")
	out = c.waitFor("notes.txt", "+hello notes")
	if !strings.Contains(out, "1 file(s) changed") {
		t.Fatalf("/diff:\n%s", out)
	}

	c.send("/status")
	c.waitFor("session   "+first, "model     m on custom", "directory "+work, "background 0 running")

	c.send("/branch other path")
	out = c.waitFor("Branched session " + first)
	c.send("in the branch")
	c.waitFor("answer to in the branch")
	all := storedSessions(t, home)
	var branch storedSession
	for _, s := range all {
		if s.ParentID == first {
			branch = s
		}
	}
	if branch.ID == "" || branch.Title != "other path" || branch.MessageCount != all[first].MessageCount+2 {
		t.Fatalf("the branch %+v; the original %+v\n%s", branch, all[first], out)
	}
	if all[first].MessageCount != 6 {
		t.Fatalf("the original holds %d messages after the branch went on", all[first].MessageCount)
	}

	// The numbered list, without the current session (the branch); the
	// original is chosen by its number.
	c.send("/resume")
	out = c.waitFor("Resume a session:", "Number (1-")
	if !strings.Contains(out, "  1. ") || strings.Contains(out, branch.ID) {
		t.Fatalf("the list (without the current session):\n%s", out)
	}
	c.send(pickNumber(t, out, first))
	c.waitFor("Resumed session " + first)
	c.send("back on the original")
	c.waitFor("answer to back on the original")
	if s := storedSessions(t, home); s[first].MessageCount != 8 || s[branch.ID].MessageCount != branch.MessageCount {
		t.Fatalf("after resuming: original %+v branch %+v", s[first], s[branch.ID])
	}
	c.in.Close()
	<-c.done
	if c.final != nil {
		t.Fatalf("hermes exited: %v\n%s", c.final, c.out.String())
	}
}

// pickNumber is the number the numbered list gives the line naming id.
func pickNumber(t *testing.T, list, id string) string {
	t.Helper()
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, id) {
			n, _, _ := strings.Cut(strings.TrimSpace(l), ".")
			return n
		}
	}
	t.Fatalf("%s is not in the list:\n%s", id, list)
	return ""
}

// The terminal UI: /steer reaches the request after the tool call that
// was running, /queue runs after the turn, and the picker resumes the
// session chosen.
func TestTUISteerQueueAndPicker(t *testing.T) {
	tuiTests.Lock()
	defer tuiTests.Unlock()
	p := newChatCmdsProvider(t)
	home, work := t.TempDir(), t.TempDir()
	tt := startTerm(t, home, work, nil, "--provider", "custom", "--base-url", p.URL(), "--model", "m")
	tt.waitFor("Ask anything")
	tt.typeLine("first session")
	tt.waitFor("answer to first session")
	tt.typeLine("/title apples")
	tt.waitFor(`is now "apples"`)
	tt.typeLine("/new")
	tt.waitFor("New session")

	tt.typeLine("hold on and use a tool")
	<-p.held
	tt.typeLine("/steer mention the weather")
	tt.waitFor("Steering:")
	tt.typeLine("/queue and then this")
	tt.waitFor("queued (1): and then this")
	p.release()
	tt.waitFor("answer to and then this")
	chats := p.chats()
	var afterTool, queued *llmtest.Request
	for i, r := range chats {
		if strings.Contains(r.LastToolResult(), "from-the-tool") {
			afterTool = r
			if i+1 < len(chats) {
				queued = chats[i+1]
			}
		}
	}
	if afterTool == nil || !strings.Contains(afterTool.LastToolResult(), "mention the weather") {
		t.Fatalf("the request after the tool call: %+v", afterTool)
	}
	if m := queued.Messages(); m[len(m)-1].Content != "and then this" {
		t.Fatalf("the queued message went as %q", m[len(m)-1].Content)
	}

	tt.typeLine("/resume")
	tt.waitFor("Resume a session", "apples", "(1 of 1)")
	tt.keys("-l", "appl")
	tt.waitFor("filter: appl")
	tt.keys("Enter")
	s := tt.waitFor("resumed session", "answer to first session")
	if strings.Contains(s, "Resume a session") {
		t.Fatalf("the picker stayed open:\n%s", s)
	}
	tt.typeLine("back in apples")
	tt.waitFor("answer to back in apples")
	var apples storedSession
	for _, s := range storedSessions(t, home) {
		if s.Title == "apples" {
			apples = s
		}
	}
	if apples.MessageCount != 4 {
		t.Fatalf("the resumed session: %+v", apples)
	}
	tt.typeLine("/exit")
	tt.waitFor("[exit 0]")
}
