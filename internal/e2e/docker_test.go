package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/backend/docker/dockertest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// dockerWorld is a world whose config puts commands in a container, with
// the fake docker first on PATH.
type dockerWorld struct {
	world
	fake string // the fake's directory: its log and containers
}

func newDockerWorld(t *testing.T, extraConfig string) dockerWorld {
	t.Helper()
	w := dockerWorld{world: newWorld(t), fake: t.TempDir()}
	dockertest.Install(t, w.fake, "docker")
	cfg := "approvals:\n  mode: manual\nterminal:\n  backend: docker\n  docker:\n    image: debian:stable-slim\n" + extraConfig
	if err := os.WriteFile(filepath.Join(w.hermesHome, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w dockerWorld) run(t *testing.T, srv *llmtest.Server, extra ...string) result {
	t.Helper()
	args := append([]string{"-z", "do it", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"}, extra...)
	env := []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome, "PATH=" + w.fake + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HERMES_E2E_TOKEN=sk-e2e-0123456789abcdefghijklmnop"}
	return hermesRun(t, env, "", w.home, w.work, args...)
}

func (w dockerWorld) calls(t *testing.T, sub string) [][]string {
	t.Helper()
	calls, err := dockertest.Calls(w.fake)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, c := range calls {
		if len(c.Args) > 0 && c.Args[0] == sub {
			out = append(out, c.Args)
		}
	}
	return out
}

// The model's command runs by docker exec in the container labelled with
// the session, which the end of the run removes; a secret of hermes'
// environment stays out of it; a resumed session finds its container.
func TestDockerBackendRunsTheModelsCommandsInTheSessionsContainer(t *testing.T) {
	w := newDockerWorld(t, "    persist: true\n")
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("echo in-$HOSTNAME token=$HERMES_E2E_TOKEN; cd .git && pwd", "pwd")...)
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := w.run(t, srv, "--usage-file", usage)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	u := readUsage(t, usage)
	session, _ := u["session_id"].(string)
	if be, _ := u["backend"].(map[string]any); be["name"] != "docker" || !contains(fmt.Sprint(be["status"]), "docker debian:stable-slim", "--cap-drop ALL", "the local Landlock sandbox does not apply") {
		t.Errorf("usage file's backend: %v", u["backend"])
	}
	runs := w.calls(t, "run")
	if len(runs) != 1 || !slices.Contains(runs[0], "hermes.session="+session) {
		t.Fatalf("run calls %v, want one labelled hermes.session=%s", runs, session)
	}
	cs, _ := dockertest.Containers(w.fake)
	if len(cs) != 1 {
		t.Fatalf("containers %+v", cs)
	}
	id := cs[0].ID
	var ran bool
	for _, e := range w.calls(t, "exec") {
		ran = ran || (slices.Contains(e, id) && slices.ContainsFunc(e, func(a string) bool { return strings.HasPrefix(a, "echo in-$HOSTNAME") }))
	}
	if !ran {
		t.Errorf("no exec of the command in container %s: %v", id, w.calls(t, "exec"))
	}
	results := toolResults(srv.Requests()[2])
	if len(results) != 2 {
		t.Fatalf("results %q", results)
	}
	if !contains(results[0], "exit code: 0", "in-"+id[:12], "--- stdout ---") || strings.Contains(results[0], "sk-e2e-") {
		t.Errorf("first result %q: want the container's hostname and no token", results[0])
	}
	if !contains(results[1], "cwd: "+filepath.Join(w.work, ".git"), filepath.Join(w.work, ".git")+"\n") {
		t.Errorf("the directory did not carry to the next command: %q", results[1])
	}

	// persist: true left it running; resuming the session uses it again.
	srv.Enqueue(terminalCalls("echo again-$HOSTNAME")...)
	if r := w.run(t, srv, "--resume", session); r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if runs := w.calls(t, "run"); len(runs) != 1 {
		t.Errorf("the resumed session made another container: %v", runs)
	}
	if res := toolResults(srv.Requests()[len(srv.Requests())-1]); !strings.Contains(res[len(res)-1], "again-"+id[:12]) {
		t.Errorf("resumed command ran elsewhere: %q", res)
	}
}

// --backend docker chooses it over the config's local backend; the end
// of the run removes the container.
func TestDockerBackendRemovesTheContainerAtTheEnd(t *testing.T) {
	w := newDockerWorld(t, "")
	os.WriteFile(filepath.Join(w.hermesHome, "config.yaml"), []byte("terminal:\n  backend: local\n  docker:\n    image: debian:stable-slim\n"), 0o644)
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("true")...)
	if r := w.run(t, srv, "--backend", "docker"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if cs, _ := dockertest.Containers(w.fake); len(cs) != 0 {
		t.Errorf("containers left: %+v", cs)
	}
	if runs := w.calls(t, "run"); len(runs) != 1 {
		t.Errorf("run calls %v", runs)
	}
	if rms := w.calls(t, "rm"); len(rms) != 1 {
		t.Errorf("rm calls %v", rms)
	}
}

// An engine that does not answer is said to the user and to the model.
func TestDockerBackendSaysTheEngineDoesNotAnswer(t *testing.T) {
	w := newDockerWorld(t, "")
	os.WriteFile(filepath.Join(w.fake, dockertest.DaemonDown), nil, 0o644)
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("echo hi")...)
	r := w.run(t, srv)
	if !strings.Contains(r.stderr, "container engine does not answer") {
		t.Errorf("stderr does not say it: %s", r.stderr)
	}
	if res := toolResults(srv.Requests()[1]); len(res) != 1 || !strings.Contains(res[0], "Cannot connect to the Docker daemon") {
		t.Errorf("tool result %q", res)
	}
}

// hermes sandbox status names the backend, the image and what the
// container enforces.
func TestSandboxStatusNamesTheDockerBackend(t *testing.T) {
	w := newDockerWorld(t, "")
	r := hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "sandbox", "status")
	if r.code != 0 || !contains(r.stdout, "docker debian:stable-slim", "--cap-drop ALL", "no-new-privileges", "--network none", "the local Landlock sandbox does not apply inside the container") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// The executor's checks come before the backend: a hardline command is
// refused even with --yolo and never reaches the container; a command
// that changes the bind-mounted workspace is checkpointed first and can
// be undone.
func TestDockerBackendKeepsTheHardlineAndCheckpoints(t *testing.T) {
	w := newDockerWorld(t, "")
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("rm -rf /", "rm main.go")...)
	if r := w.run(t, srv, "--yolo"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, e := range w.calls(t, "exec") {
		if slices.Contains(e, "rm -rf /") {
			t.Fatalf("a hardline command reached the container: %v", e)
		}
	}
	if _, err := os.Stat(filepath.Join(w.work, "main.go")); err == nil {
		t.Fatal("rm main.go did not run in the container's workspace")
	}
	r := hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "checkpoints", "list", "--json")
	var cps []struct{ ID, Reason string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &cps) != nil || len(cps) == 0 {
		t.Fatalf("checkpoints list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "checkpoints", "restore", cps[0].ID)
	if b, err := os.ReadFile(filepath.Join(w.work, "main.go")); r.code != 0 || string(b) != "package main\n" {
		t.Errorf("restore: exit %d, main.go %q %v\n%s", r.code, b, err, r.stderr)
	}
}

// A secret forward_env lets into the container is still masked in what
// the model reads back.
func TestDockerBackendForwardsNamedVariablesAndRedactsThem(t *testing.T) {
	w := newDockerWorld(t, "    forward_env: [HERMES_E2E_TOKEN]\n")
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("test -n \"$HERMES_E2E_TOKEN\" && echo got=$HERMES_E2E_TOKEN")...)
	if r := w.run(t, srv); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := toolResults(srv.Requests()[1])
	if len(res) != 1 || !contains(res[0], "exit code: 0", "got=", "[REDACTED]") || strings.Contains(res[0], "0123456789abcdefghijklmnop") {
		t.Errorf("result %q: want the forwarded token, masked", res)
	}
	for _, e := range w.calls(t, "exec") {
		if strings.Contains(strings.Join(e, " "), "sk-e2e-") {
			t.Errorf("the token travels on a command line: %v", e)
		}
	}
}
