package docker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/backend/docker/dockertest"
)

func TestARestartFindsTheConversationsContainerAgain(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "s1", "", "echo one > /dev/null")
	first := r.containers()
	// A second process (the first one killed, its container left): the
	// same session finds the labelled container and makes none.
	b2 := r.open()
	out := r.run(b2, "s1", "", "echo $HOSTNAME")
	if got := r.containers(); len(got) != 1 || got[0].ID != first[0].ID {
		t.Fatalf("containers after the restart: %+v, want only %s", got, first[0].ID)
	}
	if len(r.callsOf("run")) != 1 {
		t.Errorf("%d runs, want 1", len(r.callsOf("run")))
	}
	if strings.TrimSpace(out.stdout) != first[0].ID[:12] {
		t.Errorf("ran in %q, want container %.12s", out.stdout, first[0].ID)
	}
	var found bool
	for _, c := range r.callsOf("ps") {
		found = found || slices.Contains(c, "label=hermes.session=s1")
	}
	if !found {
		t.Error("no ps --filter label=hermes.session=s1")
	}
}

func TestAStoppedContainerIsStartedAgain(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "s1", "", "true")
	c := r.containers()[0]
	c.Running = false
	dockertest.Put(r.dir, c)
	if out := r.run(r.open(), "s1", "", "echo ok"); out.stdout != "ok\n" {
		t.Fatalf("stdout %q", out.stdout)
	}
	if starts := r.callsOf("start"); len(starts) != 1 || starts[0][1] != c.ID {
		t.Errorf("start calls %v", starts)
	}
}

func TestTwoProcessesStartingOneConversationShareOneContainer(t *testing.T) {
	r := newRig(t, "docker", nil)
	bs := []*Backend{r.b, r.b, r.b, r.open(), r.open()}
	var wg sync.WaitGroup
	for _, b := range bs {
		wg.Go(func() { r.run(b, "s1", "", "true") })
	}
	wg.Wait()
	if cs := r.containers(); len(cs) != 1 {
		t.Errorf("%d containers for one session, want 1", len(cs))
	}
}

func TestEachConversationHasItsOwnContainerAndChildSessionsShareIt(t *testing.T) {
	r := newRig(t, "docker", func(o *Options) {
		o.Conversation = func(s string) string { root, _, _ := strings.Cut(s, "/"); return root }
	})
	r.run(r.b, "a", "", "true")
	r.run(r.b, "a/child", "", "true") // a compression's or a subagent's session
	r.run(r.b, "b", "", "true")
	var sessions []string
	for _, c := range r.containers() {
		sessions = append(sessions, c.Labels[LabelSession])
	}
	slices.Sort(sessions)
	if !slices.Equal(sessions, []string{"a", "b"}) {
		t.Errorf("containers of sessions %v, want a and b", sessions)
	}
}

func TestCloseRemovesTheContainers(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "a", "", "true")
	r.run(r.b, "b", "", "true")
	if err := r.b.Close(); err != nil {
		t.Fatal(err)
	}
	if cs := r.containers(); len(cs) != 0 {
		t.Errorf("containers left after Close: %+v", cs)
	}
	if len(r.callsOf("rm")) != 2 {
		t.Errorf("rm calls %v", r.callsOf("rm"))
	}
}

func TestEndSessionRemovesThatConversationsContainer(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "a", "", "true")
	r.run(r.b, "b", "", "true")
	if err := r.b.EndSession("a"); err != nil {
		t.Fatal(err)
	}
	cs := r.containers()
	if len(cs) != 1 || cs[0].Labels[LabelSession] != "b" {
		t.Errorf("containers %+v, want b's alone", cs)
	}
}

func TestPersistLeavesTheContainerRunning(t *testing.T) {
	r := newRig(t, "docker", func(o *Options) { o.Persist = true })
	r.run(r.b, "a", "", "true")
	r.b.Close()
	cs := r.containers()
	if len(cs) != 1 || !cs[0].Running || cs[0].Labels[LabelPersist] != "true" {
		t.Fatalf("containers after Close with persist: %+v", cs)
	}
	if len(r.callsOf("rm")) != 0 {
		t.Errorf("rm calls %v", r.callsOf("rm"))
	}
	// And the next process's conversation picks it up.
	r.run(r.open(), "a", "", "true")
	if len(r.callsOf("run")) != 1 {
		t.Errorf("a second container was made: %v", r.callsOf("run"))
	}
}

func TestTheReaperRemovesOnlyExpiredOrphans(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	r := newRig(t, "docker", func(o *Options) {
		o.Now = func() time.Time { return now }
		o.InUse = func(conv string) bool { return conv == "held" }
	})
	day := int64(24 * 3600)
	put := func(id string, labels map[string]string) {
		id = fmt.Sprintf("%s%0*d", id, 64-len(id), 0)
		if err := dockertest.Put(r.dir, dockertest.Container{ID: id, Name: "c" + id[:8], Image: "x", Labels: labels, Running: true}); err != nil {
			t.Fatal(err)
		}
	}
	old, young := fmt.Sprint(now.Unix()-2*day), fmt.Sprint(now.Unix()-3600)
	put("aa01", map[string]string{LabelSession: "old", LabelCreated: old, LabelLifetime: fmt.Sprint(day), LabelPersist: "false"})
	put("aa02", map[string]string{LabelSession: "kept", LabelCreated: old, LabelLifetime: fmt.Sprint(day), LabelPersist: "true"})
	put("aa03", map[string]string{LabelSession: "young", LabelCreated: young, LabelLifetime: fmt.Sprint(day), LabelPersist: "false"})
	put("aa04", map[string]string{"other": "x"})
	put("aa05", map[string]string{LabelSession: "nolifetime", LabelCreated: old})
	put("aa06", map[string]string{LabelSession: "mine", LabelCreated: old, LabelLifetime: fmt.Sprint(day)})
	put("aa07", map[string]string{LabelSession: "held", LabelCreated: old, LabelLifetime: fmt.Sprint(day)})
	r.run(r.b, "mine", "", "true") // the first container of the backend reaps
	var left []string
	for _, c := range r.containers() {
		left = append(left, c.ID[:4])
	}
	slices.Sort(left)
	if !slices.Equal(left, []string{"aa02", "aa03", "aa04", "aa05", "aa06", "aa07"}) {
		t.Errorf("containers left %v: want all but the expired orphan aa01", left)
	}
	if w := r.warnings(); !strings.Contains(w, "aa0100000000") || !strings.Contains(w, "session old") {
		t.Errorf("warnings %q do not say what was removed", w)
	}
	// The conversation's own container, although past its lifetime, is
	// the one the command ran in.
	if len(r.callsOf("run")) != 0 {
		t.Errorf("made a container: %v", r.callsOf("run"))
	}
}

func TestOnlyForwardedVariablesEnterTheContainer(t *testing.T) {
	t.Setenv("HERMES_TEST_SECRET_TOKEN", "sk-secret-value-1234567890")
	t.Setenv("FORWARDED_ONE", "value-one")
	t.Setenv("FORWARDED_TWO", "value-two")
	r := newRig(t, "docker", func(o *Options) { o.ForwardEnv = []string{"FORWARDED_ONE", "FORWARDED_T*"} })
	out := r.run(r.b, "s", "", "env")
	if strings.Contains(out.stdout, "sk-secret-value") || strings.Contains(out.stdout, "HERMES_TEST_SECRET_TOKEN") {
		t.Errorf("a secret not in forward_env reached the container:\n%s", out.stdout)
	}
	for _, want := range []string{"FORWARDED_ONE=value-one", "FORWARDED_TWO=value-two", "PAGER=cat"} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("env lacks %s:\n%s", want, out.stdout)
		}
	}
	for _, c := range r.calls() {
		if a := strings.Join(c.Args, " "); strings.Contains(a, "value-one") || strings.Contains(a, "sk-secret") {
			t.Errorf("a forwarded value travels on the command line: %s", a)
		}
	}
	if r := r.callsOf("run")[0]; slices.Contains(r, "-e") || slices.Contains(r, "--env") {
		t.Errorf("run passes environment: %v", r)
	}
}

func TestPodmanThroughTheBinaryOption(t *testing.T) {
	r := newRig(t, "podman", nil)
	if out := r.run(r.b, "s", "", "echo ok"); out.stdout != "ok\n" {
		t.Fatalf("stdout %q", out.stdout)
	}
	calls := r.calls()
	if len(calls) == 0 {
		t.Fatal("no calls")
	}
	for _, c := range calls {
		if c.Bin != "podman" {
			t.Errorf("called %s, want podman", c.Bin)
		}
	}
	if d := r.b.Describe(); !strings.Contains(d, "(podman)") {
		t.Errorf("Describe %q does not name podman", d)
	}
}

func TestAVanishedContainerIsReplacedAndSaid(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "s", "", "true")
	old := r.containers()[0].ID
	dockertest.Remove(r.dir, old)
	if out := r.run(r.b, "s", "", "echo again"); out.stdout != "again\n" {
		t.Fatalf("stdout %q stderr %q", out.stdout, out.stderr)
	}
	if cs := r.containers(); len(cs) != 1 || cs[0].ID == old {
		t.Errorf("containers %+v", cs)
	}
	if !strings.Contains(r.warnings(), "is gone") {
		t.Errorf("warnings %q do not say the container was replaced", r.warnings())
	}
}

func TestEngineFailuresAreClearErrors(t *testing.T) {
	t.Run("no binary", func(t *testing.T) {
		r := newRig(t, "docker", func(o *Options) { o.Binary = "no-such-docker-binary" })
		_, err := r.b.Run(t.Context(), cmd("true"))
		if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "no-such-docker-binary") || !strings.Contains(err.Error(), "terminal.docker.binary") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("daemon down", func(t *testing.T) {
		r := newRig(t, "docker", nil)
		os.WriteFile(filepath.Join(r.dir, dockertest.DaemonDown), nil, 0o644)
		_, err := r.b.Run(t.Context(), cmd("true"))
		if !errors.Is(err, ErrDaemon) || !strings.Contains(err.Error(), "Cannot connect to the Docker daemon") {
			t.Errorf("err %v", err)
		}
		r.b.Run(t.Context(), cmd("true"))
		if w := r.warnings(); strings.Count(w, "does not answer") != 1 {
			t.Errorf("the user is not told once: %q", w)
		}
	})
	t.Run("image cannot be pulled", func(t *testing.T) {
		r := newRig(t, "docker", func(o *Options) { o.Image = "nosuch/image:1" })
		os.WriteFile(filepath.Join(r.dir, dockertest.Unpullable), []byte("nosuch/image:1\n"), 0o644)
		_, err := r.b.Run(t.Context(), cmd("true"))
		if !errors.Is(err, ErrImage) || !strings.Contains(err.Error(), "pull access denied for nosuch/image") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("no image configured", func(t *testing.T) {
		_, err := New(Options{Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "terminal.docker.image") {
			t.Errorf("err %v", err)
		}
	})
}
