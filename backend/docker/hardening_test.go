package docker

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

func TestContainerIsHardenedLabelledAndMountsTheWorkspace(t *testing.T) {
	r := newRig(t, "docker", nil)
	out := r.run(r.b, "20261206_080000_abcdef", "", "echo hello")
	if out.Code != 0 || out.stdout != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", out.Code, out.stdout, out.stderr)
	}
	runs := r.callsOf("run")
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1: %v", len(runs), runs)
	}
	args := runs[0]
	if got := flagValues(args, "--cap-drop"); !slices.Equal(got, []string{"ALL"}) {
		t.Errorf("--cap-drop %v, want ALL", got)
	}
	if got := flagValues(args, "--cap-add"); !slices.Equal(got, Capabilities) {
		t.Errorf("--cap-add %v, want only %v", got, Capabilities)
	}
	for flag, want := range map[string]string{
		"--security-opt": "no-new-privileges", "--pids-limit": "512", "--memory": DefaultMemory,
		"--cpus": DefaultCPUs, "--network": "none", "--name": "hermes-20261206_080000_abcdef",
	} {
		if got := flagValues(args, flag); !slices.Equal(got, []string{want}) {
			t.Errorf("%s %v, want %s", flag, got, want)
		}
	}
	if got := flagValues(args, "--tmpfs"); len(got) != 1 || !strings.HasPrefix(got[0], "/tmp:") || !strings.Contains(got[0], "nosuid") {
		t.Errorf("--tmpfs %v, want /tmp with nosuid", got)
	}
	if !slices.Contains(args, "--init") {
		t.Error("no --init: orphaned processes would not be reaped")
	}
	if n := len(args); n < 4 || !slices.Equal(args[n-4:], []string{"--entrypoint", "sleep", "debian:stable-slim", "infinity"}) {
		t.Errorf("run does not end with the image sleeping: %v", args)
	}
	if got := flagValues(args, "--mount"); !slices.Contains(got, "type=bind,source="+r.ws+",target="+r.ws) {
		t.Errorf("--mount %v, want the workspace read-write at its own path", got)
	}
	labels := flagValues(args, "--label")
	for _, want := range []string{"hermes.session=20261206_080000_abcdef", "hermes.persist=false", "hermes.lifetime=86400", "hermes.workspace=" + r.ws} {
		if !slices.Contains(labels, want) {
			t.Errorf("labels %v lack %s", labels, want)
		}
	}
	if slices.Contains(args, "--privileged") || slices.Contains(flagValues(args, "--network"), "host") {
		t.Errorf("run args weaken the container: %v", args)
	}
	if r.b.Target() != "debian:stable-slim" {
		t.Errorf("status line target %q, want the image", r.b.Target())
	}
	// The command ran in that container.
	cs := r.containers()
	if len(cs) != 1 || cs[0].Image != "debian:stable-slim" {
		t.Fatalf("containers %+v", cs)
	}
	execs := r.callsOf("exec")
	last := execs[len(execs)-1]
	if !slices.Contains(last, cs[0].ID) || !slices.Contains(last, "echo hello") {
		t.Errorf("exec %v: not the command in container %s", last, cs[0].ID)
	}
}

func TestLimitsAndNetworkFollowOptions(t *testing.T) {
	r := newRig(t, "docker", func(o *Options) {
		o.Network, o.Memory, o.CPUs, o.PidsLimit, o.User = "bridge", "1g", "0.5", 64, "1000:1000"
	})
	r.run(r.b, "s", "", "true")
	args := r.callsOf("run")[0]
	for flag, want := range map[string]string{"--network": "bridge", "--memory": "1g", "--cpus": "0.5", "--pids-limit": "64", "--user": "1000:1000"} {
		if got := flagValues(args, flag); !slices.Equal(got, []string{want}) {
			t.Errorf("%s %v, want %s", flag, got, want)
		}
	}
	if d := r.b.Describe(); !strings.Contains(d, "--network bridge") || !strings.Contains(d, "--memory 1g") {
		t.Errorf("Describe %q does not say the limits in force", d)
	}
}

func TestAZeroLimitIsLeftOut(t *testing.T) {
	r := newRig(t, "docker", func(o *Options) { o.Memory, o.CPUs = "0", "0" })
	r.run(r.b, "s", "", "true")
	args := r.callsOf("run")[0]
	if slices.Contains(args, "--memory") || slices.Contains(args, "--cpus") {
		t.Errorf("run %v sets a limit configured as 0", args)
	}
	if d := r.b.Describe(); !strings.Contains(d, "--memory none") || !strings.Contains(d, "--cpus none") {
		t.Errorf("Describe %q does not say there is no limit", d)
	}
}

func TestReadOnlyModeMountsTheWorkspaceReadOnly(t *testing.T) {
	r := newRig(t, "docker", func(o *Options) { o.Policy = policy(t, sandbox.ReadOnly, o.Dir, t.TempDir()) })
	r.run(r.b, "s", "", "true")
	mounts := flagValues(r.callsOf("run")[0], "--mount")
	if !slices.Contains(mounts, "type=bind,source="+r.ws+",target="+r.ws+",readonly") {
		t.Errorf("--mount %v, want the workspace read-only", mounts)
	}
	if err := r.b.CheckWrite(filepath.Join(r.ws, "a.txt")); err == nil {
		t.Error("a file tool may write in the workspace in read-only mode")
	}
	if err := r.b.CheckWrite("/etc/motd"); err == nil {
		t.Error("a file tool may write in the container in read-only mode")
	}
	if d := r.b.Describe(); !strings.Contains(d, "mounted read-only") {
		t.Errorf("Describe %q does not say the workspace is read-only", d)
	}
}

func TestGitHooksStayReadOnlyAndCredentialsAreCovered(t *testing.T) {
	ws := resolved(t, t.TempDir())
	for _, d := range []string{".git/hooks", ".ssh", ".hermes"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".ssh", "id_ed25519"), []byte("secret"), 0o600)
	os.WriteFile(filepath.Join(ws, ".netrc"), []byte("machine x password y"), 0o600)
	// The workspace is the home directory: ~/.ssh lies in it.
	r := newRig(t, "docker", func(o *Options) { o.Dir, o.Policy = ws, policy(t, sandbox.WorkspaceWrite, ws, ws) })
	r.run(r.b, "s", "", "true")
	mounts := flagValues(r.callsOf("run")[0], "--mount")
	for _, want := range []string{
		"type=bind,source=" + ws + "/.git/hooks,target=" + ws + "/.git/hooks,readonly",
		"type=bind,source=" + ws + "/.git/config,target=" + ws + "/.git/config,readonly",
		"type=bind,source=" + ws + "/.hermes,target=" + ws + "/.hermes,readonly",
		"type=tmpfs,target=" + ws + "/.ssh",
		"type=bind,source=/dev/null,target=" + ws + "/.netrc,readonly",
	} {
		if !slices.Contains(mounts, want) {
			t.Errorf("--mount %v lacks %s", mounts, want)
		}
	}
	if err := r.b.CheckRead(filepath.Join(ws, ".ssh", "id_ed25519")); err == nil {
		t.Error("a file tool may read a key in the workspace")
	}
	if err := r.b.CheckWrite(filepath.Join(ws, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a file tool may write a git hook")
	}
}

func TestFullAccessMountsTheWorkspaceAlone(t *testing.T) {
	ws := resolved(t, t.TempDir())
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	r := newRig(t, "docker", func(o *Options) { o.Dir, o.Policy = ws, policy(t, sandbox.FullAccess, ws, t.TempDir()) })
	r.run(r.b, "s", "", "true")
	if mounts := flagValues(r.callsOf("run")[0], "--mount"); len(mounts) != 1 {
		t.Errorf("--mount %v, want the workspace alone", mounts)
	}
}
