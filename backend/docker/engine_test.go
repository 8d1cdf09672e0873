package docker

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRealEngine runs against the docker (or HERMES_TEST_DOCKER binary)
// engine of this machine, where one answers: the hardening the engine
// reports, a command's result, and cleanup.
func TestRealEngine(t *testing.T) {
	bin := os.Getenv("HERMES_TEST_DOCKER")
	if bin == "" {
		bin = "docker"
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Skipf("no %s binary: %v", bin, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := exec.CommandContext(ctx, bin, "info").Run(); err != nil {
		t.Skipf("%s info does not answer: %v", bin, err)
	}
	image := os.Getenv("HERMES_TEST_DOCKER_IMAGE")
	if image == "" {
		image = "alpine:3"
	}
	ws := resolved(t, t.TempDir())
	b, err := New(Options{Binary: bin, Image: image, Dir: ws, Policy: policy(t, "workspace-write", ws, t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, ws: ws, b: b}
	session := "realengine_" + newCommandID()
	out := r.run(b, session, "", "mkdir -p sub && cd sub && echo hi > f && grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; grep ' /tmp ' /proc/mounts; ls /sys/class/net; exit 4")
	if out.Code != 4 || out.Dir != ws+"/sub" {
		t.Errorf("exit %d dir %q stderr %q", out.Code, out.Dir, out.stderr)
	}
	if !strings.Contains(out.stdout, "NoNewPrivs:\t1") {
		t.Errorf("no-new-privileges not in force: %q", out.stdout)
	}
	// CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETGID, SETUID: bits 0, 1, 3, 5, 6, 7.
	if !strings.Contains(out.stdout, "CapEff:\t00000000000000eb") {
		t.Errorf("capabilities beyond the kept ones: %q", out.stdout)
	}
	if !strings.Contains(out.stdout, "tmpfs /tmp tmpfs") {
		t.Errorf("/tmp is not a tmpfs: %q", out.stdout)
	}
	if !strings.Contains(out.stdout, "lo\n") || strings.Contains(out.stdout, "eth0") {
		t.Errorf("the container has a network: %q", out.stdout)
	}
	if b, err := os.ReadFile(ws + "/sub/f"); err != nil || string(b) != "hi\n" {
		t.Errorf("the workspace is not the bind mount: %q %v", b, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "ps", "-a", "-q", "--filter", "label="+LabelSession+"="+session).Output(); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("the container is left after Close: %q %v", out, err)
	}
}
