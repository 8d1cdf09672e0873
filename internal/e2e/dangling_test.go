package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// A process killed while it waits for the model leaves a prompt without
// an answer. The next run on that session closes it, marked as
// interrupted, and its call needs no repair: the new prompt is not merged
// into the old one.
func TestAfterAKillDuringAModelCallTheNextTurnIsClean(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "never sent", Hang: true}, llmtest.Reply{Text: "the second answer"})
	home := t.TempDir()
	cmd := exec.Command(hermesBin, "-z", "the first question", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Hanging()
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	r := hermes(t, home, home, "chat", "-q", "the second question", "--oneshot", "--continue", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "the second answer" {
		t.Fatalf("resumed run: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "repaired") {
		t.Fatalf("the resumed call needed repairs:\n%s", r.stderr)
	}
	sent := srv.Requests()[1].Messages()
	var got []string
	for _, m := range sent {
		if m.Role != "system" {
			got = append(got, string(m.Role)+":"+m.Content)
		}
	}
	want := []string{"user:the first question", "assistant:[Interrupted: the user stopped this request before it was answered.]", "user:the second question"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the resumed call sent\n%q\nwant\n%q", got, want)
	}
	show := hermes(t, home, home, "sessions", "show", "latest", "--json")
	if show.code != 0 || !strings.Contains(show.stdout, `"finish_reason":"interrupted"`) && !strings.Contains(show.stdout, `"finish_reason": "interrupted"`) {
		t.Fatalf("sessions show does not mark the interrupted prompt:\n%s%s", show.stdout, show.stderr)
	}
}
