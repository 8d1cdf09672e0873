package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// fiveStepsThenOverflow scripts a turn of five tool calls whose sixth
// request overflows the context window, so the history is compressed.
func fiveStepsThenOverflow(srv *llmtest.Server) {
	for i := 1; i <= 5; i++ {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo step %d"}`, i)}}})
	}
	srv.Enqueue(llmtest.Error(400, llmtest.OpenAIContextOverflowBody))
}

const (
	summaryText       = "## Goal\nrun five steps\n## Progress\nsteps 1-3 done"
	compressionConfig = "compression:\n  protect_first_n: 1\n  protect_last_n: 4\n"
)

// startUntilHanging starts hermes in its own process group and returns
// once a request hangs on srv: that request, the process, and stop, which
// SIGKILLs the group and reaps it (safe to call again; it also runs at
// cleanup).
func startUntilHanging(t *testing.T, srv *llmtest.Server, home string, args ...string) (*llmtest.Request, *os.Process, func()) {
	t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := sync.OnceFunc(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	t.Cleanup(stop)
	select {
	case req := <-srv.Hanging():
		return req, cmd.Process, stop
	case err := <-exited:
		t.Fatalf("hermes exited before a request hung: %v", err)
	}
	return nil, nil, nil
}

// killWhenHanging runs hermes and SIGKILLs it as soon as a request hangs
// on srv; it returns the hanging request.
func killWhenHanging(t *testing.T, srv *llmtest.Server, home string, args ...string) *llmtest.Request {
	t.Helper()
	req, _, stop := startUntilHanging(t, srv, home, args...)
	stop()
	return req
}

// openIntact checks the database's integrity and opens it.
func openIntact(t *testing.T, home string) *session.Store {
	t.Helper()
	path := filepath.Join(home, "state.db")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	db.Close()
	st, err := session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func allSessions(t *testing.T, st *session.Store) []session.Summary {
	t.Helper()
	l, err := st.List(context.Background(), session.ListOptions{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A hermes process killed while the summary of a compression is being
// written leaves the parent session as it was: complete, open, and the
// one --continue resumes, with every message.
func TestSIGKILLWhileSummarizingLeavesTheParentResumable(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	fiveStepsThenOverflow(srv)
	srv.Enqueue(llmtest.Reply{Text: summaryText, Hang: true})
	home := t.TempDir()
	writeConfig(t, home, compressionConfig)
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	killWhenHanging(t, srv, home, append([]string{"-z", "run five steps"}, common...)...)

	st := openIntact(t, home)
	ctx := context.Background()
	list := allSessions(t, st)
	if len(list) != 1 {
		t.Fatalf("%d sessions after the kill, want the parent alone: %+v", len(list), list)
	}
	parent := list[0]
	if !parent.EndedAt.IsZero() || parent.MessageCount != 11 { // the user message, five calls, five results
		t.Fatalf("parent %+v", parent)
	}
	if latest, err := st.Resolve(ctx, "latest"); err != nil || latest.ID != parent.ID {
		t.Fatalf("latest = %s, %v; want %s", latest.ID, err, parent.ID)
	}

	srv.Enqueue(llmtest.Reply{Text: "Carried on."})
	r := hermes(t, home, home, append([]string{"-z", "carry on", "--continue"}, common...)...)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Carried on." {
		t.Fatalf("resume: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	sent := reqs[len(reqs)-1].Messages()
	var results int
	for _, m := range sent {
		if m.Role == llm.RoleTool && strings.Contains(m.Content, "step ") {
			results++
		}
	}
	if results != 5 || sent[len(sent)-1].Content != "carry on" {
		t.Fatalf("the resumed request carries %d of 5 tool results: %+v", results, sent)
	}
}

// A hermes process killed right after a compression, during the retried
// call, leaves the complete child session: every message the retry sent,
// its parent ended, and --continue resumes the child.
func TestSIGKILLAfterCompressionLeavesTheWholeChild(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	fiveStepsThenOverflow(srv)
	srv.Enqueue(llmtest.Reply{Text: summaryText}, llmtest.Reply{Text: "never finished", Hang: true})
	home := t.TempDir()
	writeConfig(t, home, compressionConfig)
	retry := killWhenHanging(t, srv, home, "-z", "run five steps", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")

	st := openIntact(t, home)
	ctx := context.Background()
	list := allSessions(t, st)
	if len(list) != 2 {
		t.Fatalf("%d sessions after the kill, want parent and child: %+v", len(list), list)
	}
	child, parent := list[0].Session, list[1].Session
	if child.ParentID != parent.ID || parent.EndReason != "compression" || !child.EndedAt.IsZero() {
		t.Fatalf("child %+v\nparent %+v", child, parent)
	}
	if latest, err := st.Resolve(ctx, "latest"); err != nil || latest.ID != child.ID {
		t.Fatalf("latest = %s, %v; want the child %s", latest.ID, err, child.ID)
	}
	stored, err := st.Messages(ctx, child.ID)
	if err != nil {
		t.Fatal(err)
	}
	sent := retry.Messages()[1:] // without the system prompt
	if len(stored) != len(sent) {
		t.Fatalf("the child holds %d messages, the retry sent %d", len(stored), len(sent))
	}
	var sawSummary bool
	for i := range sent {
		// Transports trim the trailing blank lines of text they send.
		if stored[i].Role != sent[i].Role || strings.TrimSpace(stored[i].Content) != strings.TrimSpace(sent[i].Content) {
			t.Fatalf("message %d: stored %s %q, sent %s %q", i, stored[i].Role, stored[i].Content, sent[i].Role, sent[i].Content)
		}
		sawSummary = sawSummary || strings.Contains(stored[i].Content, "steps 1-3 done")
	}
	if !sawSummary {
		t.Fatalf("the child lacks the summary: %+v", stored)
	}
}

// A continuation the database refuses halfway (here a trigger rejects
// the summary message, after the child row and the first messages were
// written) leaves no child at all: the turn goes on in the parent, which
// keeps everything and stays the session --continue resumes.
func TestACompressionTheDatabaseRefusesHalfwayLeavesNoChild(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, compressionConfig)
	path := filepath.Join(home, "state.db")
	st, err := session.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TRIGGER refuse_summary BEFORE INSERT ON messages
		WHEN NEW.content LIKE '%steps 1-3 done%' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	srv := llmtest.NewServer(t)
	fiveStepsThenOverflow(srv)
	srv.Enqueue(llmtest.Reply{Text: summaryText}, llmtest.Reply{Text: "All five steps ran."})
	r := hermes(t, home, home, "chat", "-q", "run five steps", "--oneshot", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "All five steps ran." {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "refused by the test") {
		t.Fatalf("the failed continuation was not reported: %s", r.stderr)
	}
	st = openIntact(t, home)
	list := allSessions(t, st)
	if len(list) != 1 {
		t.Fatalf("%d sessions, want the parent alone: %+v", len(list), list)
	}
	// The user message, five calls, five results and the answer.
	if p := list[0]; p.EndReason == "compression" || p.MessageCount != 12 {
		t.Fatalf("parent %+v", p)
	}
	if latest, err := st.Resolve(context.Background(), "latest"); err != nil || latest.ID != list[0].ID {
		t.Fatalf("latest = %s, %v", latest.ID, err)
	}
}
