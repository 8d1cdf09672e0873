package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// On the ssh backend the tools say where commands run, and execute_code,
// whose scripts would run on this machine, is not offered; nothing
// connects before a tool needs the host.
func TestTheSSHBackendsToolsSayWhereTheyRunAndOfferNoExecuteCode(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	cfg := newConfig(t, srv.URL())
	cfg.Terminal.Backend = "ssh"
	cfg.Terminal.SSH.Host, cfg.Terminal.SSH.Port, cfg.Terminal.SSH.User, cfg.Terminal.SSH.Cwd = "127.0.0.1", 1, "builder", "/srv/app"
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	if _, err := c.Run(context.Background(), agent.Input{Message: "hi"}); err != nil {
		t.Fatal(err)
	}
	tools := srv.Requests()[0].Tools()
	var offered []string
	var terminal string
	for _, d := range tools {
		offered = append(offered, d.Name)
		if d.Name == "terminal" {
			terminal = d.Description
		}
	}
	if slices.Contains(offered, "execute_code") || !slices.Contains(offered, "read_file") {
		t.Errorf("offered %v", offered)
	}
	if !strings.Contains(terminal, "Commands run on the remote host builder@127.0.0.1:1 over SSH (the workspace is /srv/app there)") {
		t.Errorf("terminal description: %s", terminal)
	}
	if be := c.Backend(); be.Name() != "ssh" || !strings.Contains(be.Describe(), "the local sandbox does not apply") {
		t.Errorf("backend %s: %s", be.Name(), be.Describe())
	}
}

// terminal.backend docker without an image says which key is missing;
// with one, the tools say commands run in a container, execute_code is
// not offered, and nothing calls the engine before a tool needs it.
func TestTheDockerBackendsToolsSayWhereTheyRun(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:1")
	cfg.Terminal.Backend = "docker"
	_, err := app.New(context.Background(), cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "terminal.docker.image") {
		t.Fatalf("err = %v", err)
	}

	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	cfg = newConfig(t, srv.URL())
	cfg.Terminal.Backend = "docker"
	cfg.Terminal.Docker.Image = "debian:stable-slim"
	cfg.Terminal.Docker.Binary = "no-such-docker-cli" // no engine: a turn without commands needs none
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	if _, err := c.Run(context.Background(), agent.Input{Message: "hi"}); err != nil {
		t.Fatal(err)
	}
	var offered []string
	var terminal string
	for _, d := range srv.Requests()[0].Tools() {
		offered = append(offered, d.Name)
		if d.Name == "terminal" {
			terminal = d.Description
		}
	}
	if slices.Contains(offered, "execute_code") || !slices.Contains(offered, "read_file") {
		t.Errorf("offered %v", offered)
	}
	if !strings.Contains(terminal, "Commands run in a container (image debian:stable-slim)") {
		t.Errorf("terminal description: %s", terminal)
	}
	if be := c.Backend(); be.Name() != "docker" || !strings.Contains(be.Describe(), "the local Landlock sandbox does not apply inside the container") {
		t.Errorf("backend %s: %s", be.Name(), be.Describe())
	}
}
