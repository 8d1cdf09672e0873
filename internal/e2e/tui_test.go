package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

const tuiMarkdown = "# Findings\n\nThe **bold claim** holds, and a list:\n\n- first item\n- second item\n\n```go\nfunc main() {}\n```\n"

// tuiProvider answers by what the user wrote: markdown, a slow reply, a
// reply that never comes, a dangerous command, or "answer to ...".
type tuiProvider struct {
	*llmtest.Server
	victim string
}

// victim is the directory the "clean up" reply tries to remove ("" for
// tests that do not ask).
func newTUIProvider(t *testing.T, victim string) *tuiProvider {
	p := &tuiProvider{Server: llmtest.NewServer(t), victim: victim}
	p.AllowUnexpected() // background title calls come when they come
	p.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		last := msgs[len(msgs)-1]
		switch {
		case strings.Contains(last.Content, "Write the title for this conversation"):
			return llmtest.Reply{Text: "Untitled chat"}
		case last.Role == llm.RoleTool:
			return llmtest.Reply{Text: "tool said: " + last.Content}
		case strings.Contains(last.Content, "markdown"):
			return llmtest.Reply{Text: tuiMarkdown}
		case strings.Contains(last.Content, "slow"):
			return llmtest.Reply{Text: strings.Repeat("slow words ", 40) + "THE END", ChunkDelay: 25 * time.Millisecond}
		case strings.Contains(last.Content, "forever"):
			return llmtest.Reply{Text: "never", Hang: true}
		case strings.Contains(last.Content, "clean up"):
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf ` + p.victim + `"}`}}}
		}
		return llmtest.Reply{Text: "answer to " + last.Content}
	})
	return p
}

// chats are the requests of the conversation, without the title calls.
func (p *tuiProvider) chats() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range p.Requests() {
		if m := r.Messages(); !strings.Contains(m[len(m)-1].Content, "Write the title for this conversation") {
			out = append(out, r)
		}
	}
	return out
}

func (p *tuiProvider) lastUser() string {
	c := p.chats()
	if len(c) == 0 {
		return ""
	}
	m := c[len(c)-1].Messages()
	return m[len(m)-1].Content
}

// tuiTests runs the terminal tests one after another: each starts a
// terminal, and the machine has two cores.
var tuiTests sync.Mutex

// The UI as a new user meets it: `hermes` with no arguments, a prompt
// streaming to rendered markdown, and the slash commands, each checked
// in the provider's requests and in `hermes sessions list`.
func TestTUIConversationAndSlashCommands(t *testing.T) {
	tuiTests.Lock()
	defer tuiTests.Unlock()
	p := newTUIProvider(t, "")
	home, work := t.TempDir(), t.TempDir()
	flags := []string{"--provider", "custom", "--base-url", p.URL(), "--model", "first-model"}
	tt := startTerm(t, home, work, nil, flags...)
	tt.waitFor("Ask anything", "first-model", "workspace-write")

	tt.typeLine("show me markdown")
	s := tt.waitFor("Findings", "bold claim", "• first item", "func main() {}")
	if strings.Contains(s, "**bold claim**") || strings.Contains(s, "```") {
		t.Fatalf("markdown shown raw:\n%s", s)
	}

	sent := len(p.chats())
	tt.typeLine("/help")
	tt.waitFor("/rollback [N]", "/model [provider:]name", "/resume [id|title]")
	tt.typeLine("/modle")
	tt.waitFor("did you mean /model?")
	if n := len(p.chats()); n != sent {
		t.Fatalf("/help and a mistyped command reached the model (%d requests, was %d)", n, sent)
	}

	tt.typeLine("/title fruit talk")
	tt.waitFor(`is now "fruit talk"`)
	list := sessionList(t, home)
	if len(list) != 1 || list[0].Title != "fruit talk" {
		t.Fatalf("sessions list after /title: %+v", list)
	}
	first := list[0].ID

	tt.typeLine("/usage")
	tt.waitFor("tokens in", "tokens out", "API calls   1", "context")

	tt.typeLine("/model second-model")
	tt.waitFor("Model second-model on custom")
	tt.typeLine("which model now")
	tt.waitFor("answer to which model now")
	if c := p.chats(); c[len(c)-1].Model != "second-model" || c[0].Model != "first-model" {
		t.Fatalf("models sent: first %q, last %q", c[0].Model, c[len(c)-1].Model)
	}

	tt.typeLine("/undo")
	s = tt.waitFor("Removed the last exchange")
	if strings.Contains(s, "answer to which model now") {
		t.Fatalf("the undone exchange is still shown:\n%s", s)
	}
	if l := sessionList(t, home); l[0].MessageCount != 2 {
		t.Fatalf("after /undo the session holds %d messages", l[0].MessageCount)
	}

	sent = len(p.chats())
	tt.typeLine("/retry")
	tt.waitUntil("the retried request", func(string) bool { return len(p.chats()) > sent })
	if got := p.lastUser(); got != "show me markdown" {
		t.Fatalf("/retry sent %q", got)
	}
	tt.waitFor("bold claim")

	tt.typeLine("/new")
	tt.waitFor("New session")
	tt.typeLine("a second session")
	tt.waitFor("answer to a second session")
	list = sessionList(t, home)
	if len(list) != 2 {
		t.Fatalf("sessions after /new: %+v", list)
	}
	for _, s := range list {
		if s.ID == first && s.EndReason != "new_session" {
			t.Fatalf("the first session was not ended: %+v", s)
		}
	}

	tt.typeLine("/sessions")
	tt.waitFor("Resume a session", "fruit talk", first)
	tt.keys("Escape") // the picker; /resume TITLE resumes too
	tt.waitFor("No session chosen.")
	tt.typeLine("/resume fruit talk")
	tt.waitFor("resumed session "+first, "you are here")
	tt.typeLine("back again")
	tt.waitFor("answer to back again")
	msgs := p.chats()[len(p.chats())-1].Messages()
	if len(msgs) < 4 || msgs[1].Content != "show me markdown" {
		t.Fatalf("the resumed session's request carried %+v", msgs)
	}
	tt.typeLine("/exit")
	tt.waitFor("[exit 0]")

	// -c opens the latest session with its last turns on screen.
	again := startTerm(t, home, work, nil, append([]string{"-c"}, flags...)...)
	again.waitFor("resumed session", "back again", "answer to back again", "Ask anything")
}

// A slow reply: text typed meanwhile is queued and sent after it; Ctrl-C
// stops a reply, and a second Ctrl-C quits.
func TestTUIQueuesTypingAndCtrlCStops(t *testing.T) {
	tuiTests.Lock()
	defer tuiTests.Unlock()
	p := newTUIProvider(t, "")
	home := t.TempDir()
	tt := startTerm(t, home, t.TempDir(), nil, "chat", "--provider", "custom", "--base-url", p.URL(), "--model", "m")
	tt.waitFor("Ask anything")
	tt.typeLine("a slow one please")
	tt.waitFor("slow words")
	tt.typeLine("the follow-up")
	tt.waitFor("queued (1): the follow-up")
	s := tt.waitFor("THE END", "answer to the follow-up")
	if strings.Index(s, "THE END") > strings.Index(s, "› the follow-up") {
		t.Fatalf("the queued text landed inside the reply:\n%s", s)
	}
	if got := p.lastUser(); got != "the follow-up" {
		t.Fatalf("last request %q", got)
	}

	tt.typeLine("think forever")
	<-p.Hanging()
	start := time.Now()
	tt.keys("C-c")
	tt.waitFor("Interrupted.")
	t.Logf("Ctrl-C to the interrupted turn on screen: %s", time.Since(start))
	tt.keys("C-c")
	tt.waitFor("[exit 0]")
	if l := sessionList(t, home); len(l) != 1 || l[0].EndReason != "user_exit" {
		t.Fatalf("sessions %+v", l)
	}
}

// A dangerous command raises the approval prompt; "d" denies it and the
// victim, outside the sandbox's temporary roots, stays.
func TestTUIApprovalDenyKeepsTheVictim(t *testing.T) {
	tuiTests.Lock()
	defer tuiTests.Unlock()
	victim, err := os.MkdirTemp("/var/tmp", "hermes-victim-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(victim) })
	os.WriteFile(filepath.Join(victim, "precious.txt"), []byte("keep me"), 0o644)
	p := newTUIProvider(t, victim)
	tt := startTerm(t, t.TempDir(), t.TempDir(), nil, "chat", "--provider", "custom", "--base-url", p.URL(), "--model", "m")
	tt.waitFor("Ask anything")
	tt.typeLine("clean up the old files")
	tt.waitFor("Dangerous command", "rm -rf "+victim, "[o] once", "[d] deny")
	tt.keys("d")
	tt.waitFor("denied: rm -rf", "tool said:")
	if b, err := os.ReadFile(filepath.Join(victim, "precious.txt")); err != nil || string(b) != "keep me" {
		t.Fatalf("denied, yet the victim changed: %q %v", b, err)
	}
	if !strings.Contains(p.lastUser(), "DENIED") {
		t.Fatalf("the model was not told of the denial: %q", p.lastUser())
	}
}

// TERM=dumb and NO_COLOR keep the line mode, with the slash commands.
func TestTUIDumbTerminalGivesTheLineMode(t *testing.T) {
	tuiTests.Lock()
	defer tuiTests.Unlock()
	p := newTUIProvider(t, "")
	flags := []string{"chat", "--provider", "custom", "--base-url", p.URL(), "--model", "m"}
	tt := startTerm(t, t.TempDir(), t.TempDir(), []string{"TERM=dumb"}, flags...)
	s := tt.waitFor("/help for commands", "\n>")
	if strings.Contains(s, "Ask anything") {
		t.Fatalf("TERM=dumb opened the UI:\n%s", s)
	}
	tt.typeLine("/help")
	tt.waitFor("/rollback [N]", "/model [provider:]name")
	if n := len(p.chats()); n != 0 {
		t.Fatalf("/help reached the model in the line mode")
	}
	tt.typeLine("hello")
	tt.waitFor("answer to hello")
	tt.typeLine("/quit")
	tt.waitFor("[exit 0]")

	nc := startTerm(t, t.TempDir(), t.TempDir(), []string{"NO_COLOR=1"}, flags...)
	s = nc.waitFor("/help for commands")
	if strings.Contains(s, "Ask anything") {
		t.Fatalf("NO_COLOR opened the UI:\n%s", s)
	}
}
