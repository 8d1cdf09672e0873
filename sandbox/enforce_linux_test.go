package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const original = "original\n"

// box is a fake machine under t.TempDir(): a home with credentials and
// start-up files, HERMES_HOME inside it, a git workspace, a scratch
// directory and a victim directory nobody may write.
type box struct {
	home, hermesHome, ws, scratch, victim string
}

func newBox(t testing.TB) *box {
	t.Helper()
	base := Resolve(t.TempDir())
	b := &box{
		home:    filepath.Join(base, "home"),
		ws:      filepath.Join(base, "work"),
		scratch: filepath.Join(base, "tmp"),
		victim:  filepath.Join(base, "victim"),
	}
	b.hermesHome = filepath.Join(b.home, ".hermes")
	files := map[string]string{
		"home/.bashrc":               original,
		"home/notes.txt":             "ordinary notes\n",
		"home/.netrc":                "machine example.com password netrc-secret\n",
		"home/.ssh/id_ed25519":       "ssh-secret\n",
		"home/.hermes/.env":          "OPENAI_API_KEY=env-secret\n",
		"home/.hermes/config.yaml":   "sandbox: {}\n",
		"work/file":                  original,
		"work/src/main.go":           "package main\n",
		"work/.git/hooks/pre-commit": original,
		"work/.git/config":           original,
		"work/.git/objects/.keep":    "",
		"work/.hermes/settings.yaml": original,
		"victim/file":                original,
		"victim/dir/file":            original,
		"tmp/.keep":                  "",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *box) policy(t testing.TB, mode Mode) Policy {
	t.Helper()
	p, err := NewPolicy(Options{Mode: mode, Workdir: b.ws, Home: b.home, HermesHome: b.hermesHome, Scratch: []string{b.scratch}})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Enforcement(); e.Level != Full && e.Level != Off {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	return p
}

// run runs script under bash through the sandbox, in dir (default the
// workspace), with the fake home; it returns the combined output and the
// exit code.
func (b *box) run(t *testing.T, p Policy, dir, script string, args ...string) (string, int) {
	t.Helper()
	if throughRunner {
		return b.runThroughRunner(t, p, dir, script, args...)
	}
	return b.runWith(t, Probe(), p, dir, script, args...)
}

// runWith is run on a system that offers only st.
func (b *box) runWith(t *testing.T, st Status, p Policy, dir, script string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir = b.ws
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.home, "LC_ALL=C"}
	if p.Mode == FullAccess {
		if err := p.Wrap(cmd); err != nil {
			t.Fatal(err)
		}
	} else if err := p.wrapWith(cmd, st, nil, nil); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", script, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// A write is a change to the target: its content, or its existence.
func changed(path string) bool { return read(path) != original }

// writers are ways to change, replace or delete the file "$1".
var writers = []struct {
	name, script, needs string
}{
	{"redirect", `echo pwned > "$1"`, ""},
	{"append", `echo pwned >> "$1"`, ""},
	{"sh -c", `sh -c 'echo pwned > "$0"' "$1"`, "sh"},
	{"here-string", `cat <<< pwned > "$1"`, ""},
	{"tee", `echo pwned | tee "$1"`, "tee"},
	{"cp over", `cp /etc/hostname "$1"`, "cp"},
	{"mv away", `mv "$1" "$1.moved"`, "mv"},
	{"mv over", `echo pwned > "$TMPFILE" && mv "$TMPFILE" "$1"`, "mv"},
	{"ln over", `ln -sf /etc/hostname "$1"`, "ln"},
	{"truncate", `truncate -s 0 "$1"`, "truncate"},
	{"hard link", `ln "$1" "$WS/hard-link" && echo pwned > "$WS/hard-link"`, "ln"},
	{"dd", `echo pwned | dd of="$1" conv=notrunc`, "dd"},
	{"rm -rf", `rm -rf "$1"`, "rm"},
	{"find -exec", `find "$(dirname "$1")" -maxdepth 1 -name "$(basename "$1")" -exec sh -c 'echo pwned > "$0"' {} \;`, "find"},
	{"python3", `python3 -c 'import sys; open(sys.argv[1], "w").write("pwned")' "$1"`, "python3"},
	{"perl", `perl -e 'open(F, ">", $ARGV[0]) or die "$!"; print F "pwned"' "$1"`, "perl"},
	{"perl rename", `perl -e 'rename($ARGV[0], $ARGV[0].".x") or die "$!"' "$1"`, "perl"},
}

func TestWritesOutsideTheWritableRootsFailWhateverTheCommand(t *testing.T) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			if w.needs != "" {
				if _, err := exec.LookPath(w.needs); err != nil {
					t.Skipf("%s not installed", w.needs)
				}
			}
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			// TMPFILE is in the scratch directory, writable; WS is the
			// workspace. (A hard link between two writable roots fails
			// like one between file systems: each is a mount of its own.)
			script := "TMPFILE=" + filepath.Join(b.scratch, "t") + "; WS=" + b.ws + "; " + w.script
			inside := filepath.Join(b.ws, "file")
			if out, code := b.run(t, p, "", script, inside); code != 0 || !changed(inside) {
				t.Fatalf("the same command on a workspace file must work (exit %d):\n%s", code, out)
			}
			for _, victim := range []string{filepath.Join(b.victim, "file"), filepath.Join(b.home, ".bashrc")} {
				out, _ := b.run(t, p, "", script, victim)
				if changed(victim) {
					t.Errorf("%s changed %s: %q\n%s", w.name, victim, read(victim), out)
				}
			}
		})
	}
}

func TestOlderLandlockABIsConfineWritesToo(t *testing.T) {
	// A kernel accepts the rulesets of every ABI up to its own: this
	// one stands in for the older kernels.
	for abi := 1; abi <= Probe().LandlockABI; abi++ {
		t.Run(fmt.Sprint("ABI ", abi), func(t *testing.T) {
			st := Probe()
			st.LandlockABI = abi
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			victim := filepath.Join(b.victim, "file")
			out, code := b.runWith(t, st, p, "", `set -e; echo a > new; mkdir d; mv new d/new; echo b >> file; truncate -s 0 src/main.go; echo done`)
			if code != 0 || !strings.HasSuffix(out, "done\n") {
				t.Fatalf("writes in the workspace failed (exit %d):\n%s", code, out)
			}
			b.runWith(t, st, p, "", `echo pwned > "$1"; echo pwned >> "$1"; mv "$1" "$1.x"; rm -f "$1"`, victim)
			if abi >= abiTruncate {
				b.runWith(t, st, p, "", `truncate -s 0 "$1"`, victim)
			}
			if changed(victim) {
				t.Errorf("the victim is now %q", read(victim))
			}
		})
	}
}

func TestOutsideTheWritableRootsNothingIsCreatedOrRemoved(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	b.run(t, p, "", `mkdir "$1/new"; touch "$1/new-file"; ln -s /etc "$1/link"; mkfifo "$1/fifo"; rm -rf "$1/dir"; mv "$1/dir" "$2/dir"`, b.victim, b.ws)
	entries, _ := os.ReadDir(b.victim)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "dir file" || changed(filepath.Join(b.victim, "dir", "file")) {
		t.Errorf("victim directory now holds %v", names)
	}
}

func TestWritesInsideTheWritableRootsWork(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	script := `set -e
mkdir -p new/deep && echo a > new/deep/f
mv new/deep/f src/f            # across directories
ln -s src/f link && rm link
echo b > "$1/scratch-file"
echo c > .git/objects/obj      # git may write its objects
rm -rf new
echo done`
	out, code := b.run(t, p, "", script, b.scratch)
	if code != 0 || !strings.HasSuffix(out, "done\n") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if read(filepath.Join(b.ws, "src", "f")) != "a\n" || read(filepath.Join(b.scratch, "scratch-file")) != "b\n" {
		t.Error("the writes did not land")
	}
}

func TestGitHooksGitConfigAndHermesStayReadOnlyInTheWorkspace(t *testing.T) {
	attempts := []string{
		`echo pwned > .git/hooks/pre-commit`,
		`echo pwned >> .git/config`,
		`echo pwned > .hermes/settings.yaml`,
		`rm -f .git/hooks/pre-commit .git/config .hermes/settings.yaml`,
		`rm -rf .git/hooks .hermes`,
		`mv .git/hooks .git/hooks.old; mkdir -p .git/hooks; echo pwned > .git/hooks/pre-commit`,
		`mv .git .git.old; mkdir -p .git/hooks; echo pwned > .git/hooks/pre-commit; echo pwned > .git/config`,
		`mv .hermes .hermes.old; mkdir .hermes; echo pwned > .hermes/settings.yaml`,
		`echo pwned > /tmp/c; mv /tmp/c .git/config`,
		`git config user.name pwned`,
		`echo new > .git/hooks/post-commit`,
	}
	for _, a := range attempts {
		t.Run(a, func(t *testing.T) {
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			out, _ := b.run(t, p, "", a)
			for _, f := range []string{".git/hooks/pre-commit", ".git/config", ".hermes/settings.yaml"} {
				if path := filepath.Join(b.ws, f); changed(path) {
					t.Errorf("%s is now %q\n%s", f, read(path), out)
				}
			}
			if _, err := os.Stat(filepath.Join(b.ws, ".git", "hooks", "post-commit")); err == nil {
				t.Errorf("a hook was added\n%s", out)
			}
		})
	}
}

func TestNoHookCanBeAddedWhereNoneWas(t *testing.T) {
	tests := []struct{ name, config, hooks string }{
		{"no hooks directory", "[core]\n", ".git/hooks"},
		{"core.hooksPath", "[core]\n\thooksPath = .husky\n", ".husky"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBox(t)
			os.RemoveAll(filepath.Join(b.ws, ".git", "hooks"))
			os.WriteFile(filepath.Join(b.ws, ".git", "config"), []byte(tt.config), 0o644)
			p := b.policy(t, WorkspaceWrite)
			out, _ := b.run(t, p, "", `mkdir -p "$1"; echo pwned > "$1/pre-commit"; rm -rf "$1"; mkdir "$1"; echo pwned > "$1/pre-commit"`, tt.hooks)
			if _, err := os.Stat(filepath.Join(b.ws, tt.hooks, "pre-commit")); err == nil {
				t.Errorf("a hook was added in %s:\n%s", tt.hooks, out)
			}
		})
	}
}

func TestAWorkspaceInsideAnotherWritableRootCannotBeSwappedForItsHooks(t *testing.T) {
	b := newBox(t)
	parent := filepath.Dir(b.ws)
	p, err := NewPolicy(Options{Mode: WorkspaceWrite, Workdir: b.ws, ExtraRoots: []string{parent}, Home: b.home, HermesHome: b.hermesHome, Scratch: []string{b.scratch}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := b.run(t, p, parent, `mv work work.old; mkdir -p work/.git/hooks && echo pwned > work/.git/hooks/pre-commit`)
	if changed(filepath.Join(b.ws, ".git", "hooks", "pre-commit")) {
		t.Errorf("the workspace was swapped for one with a hook:\n%s", out)
	}
}

func TestStartUpFilesStayReadOnlyWhenTheHomeIsWritable(t *testing.T) {
	b := newBox(t)
	p, err := NewPolicy(Options{Mode: WorkspaceWrite, Workdir: b.home, Home: b.home, HermesHome: b.hermesHome, Scratch: []string{b.scratch}})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := b.run(t, p, b.home, `echo pwned >> .bashrc; mv .bashrc .bashrc.old; echo notes >> notes.txt; cat .ssh/id_ed25519`)
	if changed(filepath.Join(b.home, ".bashrc")) || read(filepath.Join(b.home, "notes.txt")) != "ordinary notes\nnotes\n" || strings.Contains(out, "ssh-secret") {
		t.Errorf("in a writable home .bashrc is %q, notes.txt %q:\n%s", read(filepath.Join(b.home, ".bashrc")), read(filepath.Join(b.home, "notes.txt")), out)
	}
}

func TestHiddenPathsCannotBeRead(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	secrets := []string{"env-secret", "ssh-secret", "netrc-secret"}
	reads := []struct{ name, dir, script string }{
		{"cat", "", `cat "$1/.hermes/.env" "$1/.ssh/id_ed25519" "$1/.netrc"`},
		{"cp into the workspace", "", `cp "$1/.hermes/.env" "$1/.ssh/id_ed25519" "$1/.netrc" . ; cat .env id_ed25519 .netrc`},
		{"cp -r the directory", "", `cp -r "$1/.ssh" ssh-copy; cat ssh-copy/*`},
		{"from inside the hidden directory", "", `cd "$1/.ssh" && cat id_ed25519`},
		{"started inside the hidden directory", "ssh", `cat id_ed25519`},
		{"unmount first", "", `umount "$1/.ssh" "$1/.hermes" "$1/.netrc"; cat "$1/.ssh/id_ed25519" "$1/.hermes/.env" "$1/.netrc"`},
		{"through the parent's root", "", `cat /proc/$PPID/root"$1/.ssh/id_ed25519" /proc/$PPID/root"$1/.hermes/.env"`},
		{"grep -r the home", "", `grep -r secret "$1"`},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			dir := ""
			if r.dir == "ssh" {
				dir = filepath.Join(b.home, ".ssh")
			}
			out, _ := b.run(t, p, dir, r.script, b.home)
			for _, s := range secrets {
				if strings.Contains(out, s) || strings.Contains(read(filepath.Join(b.ws, ".env"))+read(filepath.Join(b.ws, "id_ed25519")), s) {
					t.Errorf("%s leaked:\n%s", s, out)
				}
			}
		})
	}
	if out, code := b.run(t, p, "", `cat "$1/notes.txt" "$1/.bashrc"`, b.home); code != 0 || !strings.Contains(out, "ordinary notes") {
		t.Errorf("ordinary files must stay readable (exit %d):\n%s", code, out)
	}
}

func TestHiddenSocketsCannotBeReached(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	p.Network = NetworkOn // pathname sockets are reachable unless hidden
	daemon, other := filepath.Join(b.victim, "daemon.sock"), filepath.Join(b.victim, "other.sock")
	for _, path := range []string{daemon, other} {
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		answer(ln, "daemon-answer\n")
	}
	p.Hidden = append(p.Hidden, daemon)
	connect := `python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode())' "$1"`
	if out, code := b.run(t, p, "", connect, other); code != 0 || !strings.Contains(out, "daemon-answer") {
		t.Fatalf("a socket that is not hidden must stay reachable (exit %d):\n%s", code, out)
	}
	if out, code := b.run(t, p, "", connect, daemon); code == 0 || strings.Contains(out, "daemon-answer") {
		t.Errorf("a hidden socket answered (exit %d):\n%s", code, out)
	}
}

func TestOtherProcessesEnvironmentAndMemoryAreOutOfReach(t *testing.T) {
	// hermes holds the provider keys in its environment; this process
	// stands for it.
	agent := exec.Command("sleep", "1000")
	agent.Env = []string{"HERMES_TEST_AGENT_KEY=agent-secret"}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer agent.Process.Kill()
	pid := fmt.Sprint(agent.Process.Pid)
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	if !Probe().UserNamespace {
		t.Skip("without a user namespace /proc/<pid>/environ of the same user reads")
	}
	if out, _ := b.run(t, p, "", `cat /proc/$1/environ; head -c 4096 /proc/$1/mem; cat /proc/$PPID/environ`, pid); strings.Contains(out, "agent-secret") {
		t.Errorf("the command read another process:\n%s", out)
	}
	full := b.policy(t, FullAccess)
	if out, _ := b.run(t, full, "", `cat /proc/$1/environ`, pid); !strings.Contains(out, "agent-secret") {
		t.Errorf("unsandboxed, the environment must read (the check is wrong otherwise):\n%s", out)
	}
}

func TestReadOnlyModeBlocksWorkspaceWrites(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, ReadOnly)
	out, _ := b.run(t, p, "", `echo pwned > file; touch new; echo pwned > "$1/f"`, b.scratch)
	if changed(filepath.Join(b.ws, "file")) || exists(filepath.Join(b.ws, "new")) || exists(filepath.Join(b.scratch, "f")) {
		t.Errorf("read-only mode let a write through:\n%s", out)
	}
	if out, code := b.run(t, p, "", `cat file src/main.go > /dev/null && echo read`); code != 0 || out != "read\n" {
		t.Errorf("read-only mode must still read (exit %d):\n%s", code, out)
	}
}

func TestSideFilesAreWritableInEveryMode(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, ReadOnly)
	side := filepath.Join(b.victim, "file")
	cmd := exec.Command("bash", "-c", `pwd > "$1"`, "bash", side)
	cmd.Dir = b.ws
	if err := p.Wrap(cmd, side); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil || read(side) != b.ws+"\n" {
		t.Fatalf("side file: %v %q\n%s", err, read(side), out)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestNetworkOffBlocksTCPAndNetworkOnAllowsIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			got <- line
			c.Close()
		}
	}()
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	connect := `exec 3<>/dev/tcp/127.0.0.1/$1 && echo "hello $2" >&3 && echo connected`

	landlockOnly := Probe()
	landlockOnly.NetNamespace = false
	for _, sys := range []struct {
		name string
		st   Status
	}{{"namespace and Landlock", Probe()}, {"Landlock alone", landlockOnly}} {
		t.Run(sys.name, func(t *testing.T) {
			if sys.st.LandlockABI < abiNet && !sys.st.NetNamespace {
				t.Skip("nothing blocks TCP here")
			}
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			p.Network = NetworkOff
			if out, code := b.runWith(t, sys.st, p, "", connect, port, "off"); code == 0 || strings.Contains(out, "connected") {
				t.Errorf("network off: the connection went through (exit %d):\n%s", code, out)
			}
			p.Network = NetworkOn
			if out, code := b.runWith(t, sys.st, p, "", connect, port, "on"); code != 0 || !strings.Contains(out, "connected") {
				t.Fatalf("network on: exit %d:\n%s", code, out)
			}
			if line := <-got; line != "hello on\n" {
				t.Errorf("the listener heard %q; only the network-on command may reach it", line)
			}
		})
	}
}

func TestNetworkOffBlocksUDP(t *testing.T) {
	if !Probe().NetNamespace {
		t.Skip("no network namespace: Landlock ABI 7 does not restrict UDP")
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := fmt.Sprint(pc.LocalAddr().(*net.UDPAddr).Port)
	send := `echo "hello $2" > /dev/udp/127.0.0.1/$1 && echo sent`
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	p.Network = NetworkOff
	if out, code := b.run(t, p, "", send, port, "off"); code == 0 {
		t.Errorf("network off: a UDP datagram was sent:\n%s", out)
	}
	p.Network = NetworkOn
	if out, code := b.run(t, p, "", send, port, "on"); code != 0 {
		t.Fatalf("network on: exit %d:\n%s", code, out)
	}
	buf := make([]byte, 64)
	n, _, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "hello on\n" {
		t.Errorf("the listener got %q (%v); only the network-on datagram may arrive", buf[:n], err)
	}
}

func TestNetworkOffBlocksMultipathTCP(t *testing.T) {
	// Landlock's TCP rules do not see multipath TCP sockets; the empty
	// network namespace does.
	if !Probe().NetNamespace {
		t.Skip("no network namespace: multipath TCP gets through Landlock")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // multipath-capable since Go 1.24
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	answer(ln, "listener-answer\n")
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	connect := `python3 -c 'import socket, sys; s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect(("127.0.0.1", int(sys.argv[1]))); print(s.recv(64).decode())' "$1"`
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	p.Network = NetworkOn
	if out, code := b.run(t, p, "", connect, port); code != 0 || !strings.Contains(out, "listener-answer") {
		t.Skipf("no multipath TCP here (exit %d): %s", code, out)
	}
	p.Network = NetworkOff
	if out, _ := b.run(t, p, "", connect, port); strings.Contains(out, "listener-answer") {
		t.Errorf("network off: a multipath TCP connection went through:\n%s", out)
	}
}

func TestFullAccessDoesNotRestrict(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, FullAccess)
	out, code := b.run(t, p, "", `echo full > "$1/file" && cat "$2/.ssh/id_ed25519"`, b.victim, b.home)
	if code != 0 || read(filepath.Join(b.victim, "file")) != "full\n" || !strings.Contains(out, "ssh-secret") {
		t.Errorf("full-access restricted the command (exit %d):\n%s", code, out)
	}
}

func TestSignalsReachOnlyTheCommandsOwnProcesses(t *testing.T) {
	if Probe().LandlockABI < abiScope {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	outside := exec.Command("sleep", "1000")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer outside.Process.Kill()
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	out, code := b.run(t, p, "", `sleep 1000 & own=$!; kill $own && wait $own; echo own-killed; kill "$1"`, fmt.Sprint(outside.Process.Pid))
	if !strings.Contains(out, "own-killed") {
		t.Errorf("a command must signal its own children:\n%s", out)
	}
	if code == 0 {
		t.Errorf("a command killed a process outside its sandbox:\n%s", out)
	}
}

func TestTheCommandHoldsNoPrivilegeOverTheHost(t *testing.T) {
	if !Probe().UserNamespace {
		t.Skip("no user namespace: root keeps its capabilities")
	}
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	// Setting the hostname to itself needs CAP_SYS_ADMIN over the host's
	// UTS namespace, and changes nothing if it does go through.
	if out, code := b.run(t, p, "", `hostname "$(hostname)" && echo set`); code == 0 || strings.Contains(out, "set") {
		t.Errorf("the command holds host capabilities:\n%s", out)
	}
}

func TestMountsDoNotReachTheHost(t *testing.T) {
	before := read("/proc/self/mountinfo")
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	if out, code := b.run(t, p, "", `grep -c "$1" /proc/self/mountinfo`, b.home); code != 0 || out == "0\n" {
		t.Fatalf("the command sees no mount over the hidden paths (exit %d): %s", code, out)
	}
	if after := read("/proc/self/mountinfo"); after != before {
		t.Errorf("the host's mounts changed:\n%s", after)
	}
}

func TestACommandIsWrappedOnce(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	cmd := exec.Command("true")
	if err := p.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if err := p.Wrap(cmd); err == nil {
		t.Error("a second Wrap nested the helper")
	}
}

func TestTheHelperRemovesThePlanFromTheEnvironment(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	if out, _ := b.run(t, p, "", `env`); strings.Contains(out, planEnv) || !strings.Contains(out, "HOME="+b.home) {
		t.Errorf("environment of the command:\n%s", out)
	}
}

// answer writes text to every connection ln accepts, until it is closed.
func answer(ln net.Listener, text string) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(text))
			c.Close()
		}
	}()
}
