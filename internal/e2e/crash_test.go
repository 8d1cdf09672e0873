package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A hermes process killed with SIGKILL in the middle of a turn leaves
// every message its user had seen in the database, and the database
// intact.
func TestSIGKILLMidTurnLosesNothingTheUserSaw(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(
		llmtest.Reply{Text: "Let me look.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"echo first-result"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "terminal", Arguments: `{"command":"sleep 600"}`}}},
	)
	home := t.TempDir()
	cmd := exec.Command(hermesBin, "chat", "-q", "investigate", "--oneshot", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)

	// Wait until the user sees the second command start: by then the first
	// result and the second call are on their screen.
	sc := bufio.NewScanner(stderr)
	seen := 0
	for sc.Scan() {
		if strings.Contains(sc.Text(), "→ terminal") {
			seen++
			if seen == 2 {
				break
			}
		}
	}
	if seen != 2 {
		t.Fatalf("the second tool call never started")
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	st := openIntact(t, home)
	s, err := st.Resolve(context.Background(), "latest")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Messages(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		d := string(m.Role) + ":" + m.Content
		for _, c := range m.ToolCalls {
			d += "[" + c.ID + "]"
		}
		got = append(got, d)
	}
	want := []string{"user:investigate", "assistant:Let me look.[call_1]", "tool:", "assistant:[call_2]"}
	if len(got) != len(want) {
		t.Fatalf("stored %q, want %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("stored %q, want %q", got, want)
		}
	}
	if !strings.Contains(msgs[2].Content, "first-result") {
		t.Fatalf("first tool result not stored: %q", msgs[2].Content)
	}
}
