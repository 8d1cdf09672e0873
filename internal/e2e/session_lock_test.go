package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// Two processes resuming one session do not interleave their messages:
// while one writes it, the other is refused with exit status 2, naming
// the session and the process holding it, and writes nothing. New
// sessions go on meanwhile, and a SIGKILLed holder leaves the session
// free.
func TestASecondProcessResumingASessionIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "first answer"})
	home := t.TempDir()
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	if r := hermes(t, home, home, append([]string{"-z", "first"}, common...)...); r.code != 0 {
		t.Fatalf("first run: exit %d %s", r.code, r.stderr)
	}
	id := latestID(t, home)

	// The holder: its model call hangs, so it holds the session.
	srv.Enqueue(llmtest.Reply{Text: "never finished", Hang: true})
	_, holder, stop := startUntilHanging(t, srv, home, append([]string{"-z", "second", "--continue"}, common...)...)

	for _, args := range [][]string{
		{"-z", "third", "--continue"},
		{"-z", "third", "--resume", id},
		{"chat", "--resume", id},
	} {
		r := hermesIn(t, "third\n", home, home, append(args, common...)...)
		if r.code != 2 || !contains(r.stderr, id, "in use", "process "+strconv.Itoa(holder.Pid)) {
			t.Fatalf("%v while another process writes the session: exit %d stderr %s", args, r.code, r.stderr)
		}
	}
	srv.Enqueue(llmtest.Reply{Text: "a new session"})
	if r := hermes(t, home, home, append([]string{"-z", "something else"}, common...)...); r.code != 0 {
		t.Fatalf("a new session while another is held: exit %d %s", r.code, r.stderr)
	}

	stop()
	srv.Enqueue(llmtest.Reply{Text: "fourth answer"})
	if r := hermes(t, home, home, append([]string{"-z", "fourth", "--resume", id}, common...)...); r.code != 0 || strings.TrimSpace(r.stdout) != "fourth answer" {
		t.Fatalf("resume after the holder was killed: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	st, err := session.Open(filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, err := st.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.Content)
	}
	// The killed holder's prompt is closed, marked, before the fourth.
	want := "user:first assistant:first answer user:second assistant:" + agent.InterruptedNote + " user:fourth assistant:fourth answer"
	if strings.Join(got, " ") != want {
		t.Fatalf("session %s holds %q, want %q", id, got, want)
	}
}

// hermesIn is hermes with stdin, in home.
func latestID(t *testing.T, home string) string {
	t.Helper()
	st, err := session.Open(filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Resolve(context.Background(), "latest")
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}
