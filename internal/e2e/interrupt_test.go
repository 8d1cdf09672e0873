package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// Ctrl-C (SIGINT) during a model call stops the turn: the process exits
// with status 130, the usage file says interrupted, and the stalled
// response never enters the session.
func TestCtrlCStopsAModelCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "never finished", Hang: true})
	home := t.TempDir()
	usage := filepath.Join(home, "u.json")
	cmd := exec.Command(hermesBin, "-z", "think hard", "--provider", "custom", "--base-url", srv.URL(), "--model", "m", "--usage-file", usage)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-srv.Hanging()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v", err)
	}
	u := readUsage(t, usage)
	if u["interrupted"] != true || u["completed"] != false || u["exit_reason"] != "interrupted_during_api_call" {
		t.Fatalf("usage %v", u)
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout carries more than an answer: %q", stdout.String())
	}
}
