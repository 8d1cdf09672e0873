package ssh

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/backend/ssh/sshtest"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/terminal"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// client is what a test needs to reach a server: a key file and a
// known_hosts file.
type client struct {
	key, knownHosts string
	pub             gossh.PublicKey
}

func newClient(t *testing.T) client {
	t.Helper()
	dir := t.TempDir()
	s, priv := sshtest.NewKey(t)
	c := client{key: filepath.Join(dir, "id_ed25519"), knownHosts: filepath.Join(dir, "known_hosts"), pub: s.PublicKey()}
	sshtest.WriteKey(t, priv, c.key)
	return c
}

// fixture is a server, a backend connected to it and the tools over it.
type fixture struct {
	srv    *sshtest.Server
	cl     client
	be     *Backend
	term   *terminal.Terminal
	files  *file.Tools
	work   string // the remote workspace
	stderr *bytes.Buffer
}

func trust(t *testing.T, cl client, srv *sshtest.Server) {
	t.Helper()
	host, port, _ := net.SplitHostPort(srv.Addr)
	addr := net.JoinHostPort(host, port)
	tcp, _ := net.ResolveTCPAddr("tcp", srv.Addr)
	if err := Trust(cl.knownHosts, addr, tcp, srv.HostKey.PublicKey()); err != nil {
		t.Fatal(err)
	}
}

func options(srv *sshtest.Server, cl client) Options {
	host, port, _ := net.SplitHostPort(srv.Addr)
	p, _ := strconv.Atoi(port)
	return Options{Host: host, Port: p, User: "tester", Key: cl.key, KnownHosts: cl.knownHosts,
		Getenv: func(k string) string {
			if k == "SSH_AUTH_SOCK" {
				return "" // only the key file: the test must not use a developer's agent
			}
			return os.Getenv(k)
		}}
}

func setUp(t *testing.T, trusted bool, tweak func(*Options)) *fixture {
	t.Helper()
	hostKey, _ := sshtest.NewKey(t)
	cl := newClient(t)
	srv := sshtest.Start(t, hostKey, cl.pub)
	if trusted {
		trust(t, cl, srv)
	}
	f := &fixture{srv: srv, cl: cl, work: filepath.Join(srv.Home, "work"), stderr: &bytes.Buffer{}}
	os.MkdirAll(f.work, 0o755)
	o := options(srv, cl)
	o.Cwd = f.work
	o.Warn = func(s string) { f.stderr.WriteString(s + "\n") }
	if tweak != nil {
		tweak(&o)
	}
	be, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.be = be
	f.term = terminal.New(terminal.Options{Backend: be, Timeout: 20 * time.Second})
	f.files = file.New(file.Options{FS: be.FS(), Workdir: f.term.Workdir, ReadGuard: be.CheckRead, WriteGuard: be.CheckWrite})
	t.Cleanup(func() {
		f.term.Close()
		be.Close()
	})
	return f
}

func call(t *testing.T, ctx context.Context, tl tool.Tool, args any) tool.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := tl.Run(ctx, tool.Call{ID: "c", Name: tl.Spec().Name, Args: b, TaskID: "task"})
	if err != nil {
		t.Fatalf("%s: %v", tl.Spec().Name, err)
	}
	return res
}

func (f *fixture) run(t *testing.T, command string) tool.Result {
	t.Helper()
	return call(t, context.Background(), f.term.TerminalTool(), map[string]any{"command": command})
}

func (f *fixture) fileTool(name string) tool.Tool {
	for _, tl := range f.files.All() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	panic(name)
}

func TestCommandsRunOnTheRemoteHostReadingAsLocalOnes(t *testing.T) {
	f := setUp(t, true, nil)
	res := f.run(t, "echo out; echo err >&2; exit 3")
	want := fmt.Sprintf("exit code: 3\ncwd: %s\n--- stdout ---\nout\n--- stderr ---\nerr\n", f.work)
	if res.Content != want || res.IsError {
		t.Fatalf("result:\n%s\nwant:\n%s", res.Content, want)
	}
	if ran := f.srv.Ran(); len(ran) == 0 || !strings.Contains(strings.Join(ran, "\n"), "exec ") {
		t.Fatalf("the server ran nothing: %q", ran)
	}
	// The head and tail of a long output are kept, as locally.
	res = call(t, context.Background(), terminal.New(terminal.Options{Backend: f.be, MaxOutput: 100}).TerminalTool(), map[string]any{"command": "seq 1 10000"})
	if !strings.Contains(res.Content, "bytes of output truncated") || !strings.Contains(res.Content, "\n10000\n") || !strings.Contains(res.Content, "1\n2\n3\n") {
		t.Fatalf("capped output:\n%s", res.Content)
	}
}

func TestCdAndExportedVariablesCarryOverBetweenCommands(t *testing.T) {
	f := setUp(t, true, nil)
	os.MkdirAll(filepath.Join(f.work, "sub dir"), 0o755)
	res := f.run(t, "cd 'sub dir' && export GREETING='hello there' COUNT=2")
	if !strings.Contains(res.Content, "cwd: "+filepath.Join(f.work, "sub dir")+"\n") {
		t.Fatalf("cd was not kept:\n%s", res.Content)
	}
	res = f.run(t, `pwd; echo "$GREETING/$COUNT"`)
	if want := filepath.Join(f.work, "sub dir") + "\nhello there/2\n"; !strings.Contains(res.Content, "--- stdout ---\n"+want) {
		t.Fatalf("second command:\n%s", res.Content)
	}
	// Another task starts afresh in the workspace, without those variables.
	b, _ := json.Marshal(map[string]any{"command": `pwd; echo "[$GREETING]"`})
	other, _ := f.term.TerminalTool().Run(context.Background(), tool.Call{ID: "c", Name: "terminal", Args: b, TaskID: "other"})
	if !strings.Contains(other.Content, "--- stdout ---\n"+f.work+"\n[]\n") {
		t.Fatalf("another task:\n%s", other.Content)
	}
}

func TestADroppedConnectionIsMadeAgain(t *testing.T) {
	f := setUp(t, true, nil)
	f.run(t, "mkdir -p d && cd d && export KEPT=yes")
	before := f.srv.Logins.Load()
	f.srv.DropAll()
	res := f.run(t, `echo "again $KEPT"; pwd`)
	if !strings.Contains(res.Content, "exit code: 0\n") || !strings.Contains(res.Content, "again yes\n"+filepath.Join(f.work, "d")+"\n") {
		t.Fatalf("after the drop:\n%s", res.Content)
	}
	if f.srv.Logins.Load() != before+1 {
		t.Fatalf("logins %d, want %d: no new connection", f.srv.Logins.Load(), before+1)
	}
	// The file tools find the new connection too.
	f.srv.DropAll()
	if res := call(t, context.Background(), f.fileTool("read_file"), map[string]any{"path": "/etc/hostname"}); res.IsError && !strings.Contains(res.Content, "does not exist") {
		t.Fatalf("read after a drop: %s", res.Content)
	}
}

func hostLine(srv *sshtest.Server) string {
	return TrustCommand(srv.Addr)
}

func TestAnUnknownHostIsRefusedWithItsFingerprintAndTheTrustCommand(t *testing.T) {
	f := setUp(t, false, nil)
	res := f.run(t, "touch ran")
	fp := gossh.FingerprintSHA256(f.srv.HostKey.PublicKey())
	for _, want := range []string{fp, hostLine(f.srv), "not known"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
		if !strings.Contains(f.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, f.stderr.String())
		}
	}
	if !res.IsError {
		t.Error("the refusal is not an error result")
	}
	if ran := f.srv.Ran(); len(ran) != 0 || f.srv.Logins.Load() != 0 {
		t.Fatalf("the server ran %q (%d logins) for an unknown host", ran, f.srv.Logins.Load())
	}
	if _, err := os.Stat(filepath.Join(f.work, "ran")); err == nil {
		t.Fatal("the command ran")
	}
	// The file tools are refused alike.
	if res := call(t, context.Background(), f.fileTool("write_file"), map[string]any{"path": "x.txt", "content": "x"}); !res.IsError || !strings.Contains(res.Content, fp) {
		t.Fatalf("write_file on an unknown host: %s", res.Content)
	}
	if strings.Count(f.stderr.String(), fp) != 1 {
		t.Errorf("stderr tells the fingerprint %d times, want once:\n%s", strings.Count(f.stderr.String(), fp), f.stderr.String())
	}

	// Trusting it (what hermes ssh trust does) lets the next command run.
	key, remote, err := ScanHostKey(f.srv.Addr, &gossh.ClientConfig{Timeout: 5 * time.Second})
	if err != nil || gossh.FingerprintSHA256(key) != fp {
		t.Fatalf("scan: %v %v", key, err)
	}
	if err := Trust(f.cl.knownHosts, f.srv.Addr, remote, key); err != nil {
		t.Fatal(err)
	}
	if res := f.run(t, "touch ran && echo done"); !strings.Contains(res.Content, "exit code: 0\n") {
		t.Fatalf("after trust:\n%s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(f.work, "ran")); err != nil {
		t.Fatal("the command did not run after trust")
	}
}

func TestAChangedHostKeyIsRefusedLoudly(t *testing.T) {
	f := setUp(t, false, nil)
	old, _ := sshtest.NewKey(t)
	tcp, _ := net.ResolveTCPAddr("tcp", f.srv.Addr)
	if err := Trust(f.cl.knownHosts, f.srv.Addr, tcp, old.PublicKey()); err != nil {
		t.Fatal(err)
	}
	res := f.run(t, "touch ran")
	for _, want := range []string{"HAS CHANGED", gossh.FingerprintSHA256(f.srv.HostKey.PublicKey()), gossh.FingerprintSHA256(old.PublicKey()), "man in the middle", f.cl.knownHosts + ":1"} {
		if !strings.Contains(res.Content, want) || !strings.Contains(f.stderr.String(), want) {
			t.Errorf("result or stderr lacks %q:\n%s\n%s", want, res.Content, f.stderr.String())
		}
	}
	if ran := f.srv.Ran(); len(ran) != 0 || f.srv.Logins.Load() != 0 {
		t.Fatalf("the server ran %q for a changed key", ran)
	}
}

func TestSecretsStayHomeUnlessForwarded(t *testing.T) {
	t.Setenv("HERMES_TEST_API_TOKEN", "tok-must-not-travel")
	t.Setenv("HERMES_TEST_PLAIN", "plain-stays-too")
	t.Setenv("HERMES_TEST_FORWARDED", "it's forwarded")
	t.Setenv("HERMES_TEST_GLOB_A", "glob-a")
	f := setUp(t, true, func(o *Options) { o.ForwardEnv = []string{"HERMES_TEST_FORWARDED", "HERMES_TEST_GLOB_*"} })
	out := f.run(t, "env").Content
	for _, gone := range []string{"tok-must-not-travel", "plain-stays-too"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s reached the remote host:\n%s", gone, out)
		}
	}
	for _, kept := range []string{"HERMES_TEST_FORWARDED=it's forwarded\n", "HERMES_TEST_GLOB_A=glob-a\n", "PAGER=cat\n"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q was not forwarded:\n%s", kept, out)
		}
	}
	if d := f.be.Describe(); !strings.Contains(d, "forward_env: HERMES_TEST_FORWARDED, HERMES_TEST_GLOB_*") {
		t.Errorf("Describe = %q", d)
	}
}

// pidAlive says whether pid runs: a zombie (killed, not yet reaped by
// whoever inherited it) does not.
func pidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndex(s, ") ")
	return i < 0 || s[i+2] != 'Z'
}

// waitFile polls for a file a remote command writes.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pidAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestInterruptSignalsTheChannelAndKillsTheRemoteCommand(t *testing.T) {
	f := setUp(t, true, nil)
	pidFile := filepath.Join(f.work, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		done <- call(t, ctx, f.term.TerminalTool(), map[string]any{"command": "sh -c 'echo $$ > pid; exec sleep 60'; echo not reached"})
	}()
	pid, _ := strconv.Atoi(waitFile(t, pidFile))
	cancel()
	select {
	case res := <-done:
		if !strings.Contains(res.Content, "cancelled") || strings.Contains(res.Content, "not reached") {
			t.Fatalf("result:\n%s", res.Content)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted command did not return")
	}
	waitDead(t, pid)
	if sigs := f.srv.Signals(); len(sigs) == 0 || sigs[0] != "KILL" {
		t.Fatalf("signals over the channel: %q", sigs)
	}
}

func TestATimedOutCommandIsKilled(t *testing.T) {
	f := setUp(t, true, nil)
	start := time.Now()
	res := call(t, context.Background(), f.term.TerminalTool(), map[string]any{"command": "sh -c 'echo $$ > pid; exec sleep 60'", "timeout": 1})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 1s") || time.Since(start) > 15*time.Second {
		t.Fatalf("result after %s:\n%s", time.Since(start), res.Content)
	}
	pid, _ := strconv.Atoi(waitFile(t, filepath.Join(f.work, "pid")))
	waitDead(t, pid)
}

func TestWhatAForegroundCommandLeftRunningIsKilled(t *testing.T) {
	f := setUp(t, true, nil)
	res := f.run(t, "sh -c 'echo $$ > left; exec sleep 60' >/dev/null 2>&1 & echo started")
	if !strings.Contains(res.Content, "exit code: 0\n") || !strings.Contains(res.Content, "started") {
		t.Fatalf("result:\n%s", res.Content)
	}
	pid, _ := strconv.Atoi(waitFile(t, filepath.Join(f.work, "left")))
	waitDead(t, pid)
}

func TestBackgroundProcessesRunRemotelyAndAreKilled(t *testing.T) {
	f := setUp(t, true, nil)
	proc := f.term.ProcessTool()
	res := call(t, context.Background(), f.term.TerminalTool(), map[string]any{"command": "echo begin; sleep 0.2; echo end; exit 4", "background": true})
	if !strings.Contains(res.Content, "Started background process proc_1") {
		t.Fatalf("start:\n%s", res.Content)
	}
	res = call(t, context.Background(), proc, map[string]any{"action": "wait", "id": "proc_1", "timeout": 20})
	if !strings.Contains(res.Content, "exited with code 4") || !strings.Contains(res.Content, "begin\nend\n") {
		t.Fatalf("wait:\n%s", res.Content)
	}
	call(t, context.Background(), f.term.TerminalTool(), map[string]any{"command": "sh -c 'echo $$ > bg; exec sleep 60'", "background": true})
	pid, _ := strconv.Atoi(waitFile(t, filepath.Join(f.work, "bg")))
	res = call(t, context.Background(), proc, map[string]any{"action": "kill", "id": "proc_2"})
	if !strings.Contains(res.Content, "killed") {
		t.Fatalf("kill:\n%s", res.Content)
	}
	waitDead(t, pid)
}

func TestFileToolsGoOverSFTPWithThePathPolicy(t *testing.T) {
	f := setUp(t, true, nil)
	ctx := context.Background()
	f.run(t, "mkdir -p src && cd src") // the file tools follow the task's directory
	ranBefore, sftpBefore := len(f.srv.Ran()), f.srv.SFTPIn.Load()

	res := call(t, ctx, f.fileTool("write_file"), map[string]any{"path": "main.go", "content": "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"})
	if res.IsError || !strings.Contains(res.Content, "Created "+filepath.Join(f.work, "src", "main.go")) {
		t.Fatalf("write_file: %s", res.Content)
	}
	res = call(t, ctx, f.fileTool("patch"), map[string]any{"path": "main.go", "old_string": `println("hi")`, "new_string": `println("hello")`})
	if res.IsError || !strings.Contains(res.Content, `+	println("hello")`) {
		t.Fatalf("patch: %s", res.Content)
	}
	res = call(t, ctx, f.fileTool("read_file"), map[string]any{"path": "main.go"})
	if res.IsError || !strings.Contains(res.Content, "     4|\tprintln(\"hello\")\n") {
		t.Fatalf("read_file: %s", res.Content)
	}
	os.WriteFile(filepath.Join(f.work, "src", "other.go"), []byte("package main // hello too\n"), 0o644)
	os.WriteFile(filepath.Join(f.work, ".gitignore"), []byte("ignored.go\n"), 0o644)
	os.Mkdir(filepath.Join(f.work, ".git"), 0o755)
	os.WriteFile(filepath.Join(f.work, "src", "ignored.go"), []byte("hello ignored\n"), 0o644)
	res = call(t, ctx, f.fileTool("search_files"), map[string]any{"pattern": "hello", "path": f.work})
	if want := "main.go:4:\tprintln(\"hello\")\nother.go:1:package main // hello too\n"; res.IsError || res.Content != want {
		t.Fatalf("search_files:\n%s\nwant:\n%s", res.Content, want)
	}
	if b, _ := os.ReadFile(filepath.Join(f.work, "src", "main.go")); !strings.Contains(string(b), `println("hello")`) {
		t.Fatalf("the file on the remote side holds %q", b)
	}
	// All of it went over SFTP, none of it through a command.
	if ran := f.srv.Ran(); len(ran) != ranBefore {
		t.Fatalf("the file tools ran commands: %q", ran[ranBefore:])
	}
	if f.srv.SFTPIn.Load() == sftpBefore {
		t.Fatal("no SFTP request reached the server")
	}

	// The path policy holds on the remote side.
	os.MkdirAll(filepath.Join(f.srv.Home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(f.srv.Home, ".ssh", "id_ed25519"), []byte("PRIVATE"), 0o600)
	os.Symlink(filepath.Join(f.srv.Home, ".ssh"), filepath.Join(f.work, "keys"))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "~/.ssh/id_ed25519"}, "keys or credentials"},
		{"read_file", map[string]any{"path": filepath.Join(f.work, "keys", "id_ed25519")}, "keys or credentials"},
		{"write_file", map[string]any{"path": filepath.Join(f.srv.Home, "outside.txt"), "content": "x"}, "outside the remote workspace"},
		{"write_file", map[string]any{"path": "~/.bashrc", "content": "x"}, "start-up or settings file"},
		{"write_file", map[string]any{"path": filepath.Join(f.work, ".git", "hooks", "pre-commit"), "content": "x"}, "stays read-only"},
	} {
		res := call(t, ctx, f.fileTool(tc.tool), tc.args)
		if !res.IsError || !strings.Contains(res.Content, tc.want) || strings.Contains(res.Content, "PRIVATE") {
			t.Errorf("%s %v: %s", tc.tool, tc.args, res.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(f.srv.Home, "outside.txt")); err == nil {
		t.Error("a write outside the workspace happened")
	}
	// /tmp is writable, as locally.
	tmp := filepath.Join("/tmp", fmt.Sprintf("hermes-ssh-test-%d.txt", time.Now().UnixNano()))
	defer os.Remove(tmp)
	if res := call(t, ctx, f.fileTool("write_file"), map[string]any{"path": tmp, "content": "x"}); res.IsError {
		t.Errorf("write to /tmp: %s", res.Content)
	}
}

func TestReadOnlyRefusesEveryRemoteWriteAndFullAccessNone(t *testing.T) {
	ro := setUp(t, true, func(o *Options) { o.Mode = "read-only" })
	if res := call(t, context.Background(), ro.fileTool("write_file"), map[string]any{"path": "a.txt", "content": "x"}); !res.IsError || !strings.Contains(res.Content, "read-only") {
		t.Fatalf("read-only write: %s", res.Content)
	}
	full := setUp(t, true, func(o *Options) { o.Mode = "full-access" })
	out := filepath.Join(full.srv.Home, "outside.txt")
	if res := call(t, context.Background(), full.fileTool("write_file"), map[string]any{"path": out, "content": "x"}); res.IsError {
		t.Fatalf("full-access write: %s", res.Content)
	}
}

// With no key file the running ssh-agent's keys log in (SSH_AUTH_SOCK),
// as with ssh.
func TestTheAgentsKeysLogIn(t *testing.T) {
	hostKey, _ := sshtest.NewKey(t)
	signer, priv := sshtest.NewKey(t)
	srv := sshtest.Start(t, hostKey, signer.PublicKey())
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(keyring, c); c.Close() }()
		}
	}()
	cl := client{knownHosts: filepath.Join(t.TempDir(), "known_hosts")}
	trust(t, cl, srv)
	o := options(srv, cl)
	o.Key, o.Cwd = "", srv.Home
	o.Getenv = func(k string) string {
		switch k {
		case "SSH_AUTH_SOCK":
			return sock
		case "HOME":
			return t.TempDir() // no key files of its own
		}
		return os.Getenv(k)
	}
	be, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	term := terminal.New(terminal.Options{Backend: be})
	defer term.Close()
	res := call(t, context.Background(), term.TerminalTool(), map[string]any{"command": "echo via-agent"})
	if !strings.Contains(res.Content, "exit code: 0\n") || !strings.Contains(res.Content, "via-agent") || srv.Logins.Load() != 1 {
		t.Fatalf("result:\n%s", res.Content)
	}
}

// A key file with a passphrase is refused saying to use the agent.
func TestAKeyWithAPassphraseAsksForTheAgent(t *testing.T) {
	f := setUp(t, true, nil)
	_, priv := sshtest.NewKey(t)
	blk, err := gossh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("secret"))
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "id_locked")
	os.WriteFile(key, pem.EncodeToMemory(blk), 0o600)
	o := options(f.srv, f.cl)
	o.Key, o.Cwd = key, f.work
	be, _ := New(o)
	defer be.Close()
	term := terminal.New(terminal.Options{Backend: be})
	defer term.Close()
	res := call(t, context.Background(), term.TerminalTool(), map[string]any{"command": "true"})
	if !res.IsError || !strings.Contains(res.Content, "passphrase") || !strings.Contains(res.Content, "ssh-add "+key) {
		t.Fatalf("result: %s", res.Content)
	}
}

// Close removes the remote state directory.
func TestCloseRemovesTheRemoteState(t *testing.T) {
	f := setUp(t, true, nil)
	f.run(t, "export X=1")
	_, state := f.be.where()
	if st, err := os.Stat(state); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state directory %s: %v %v", state, st, err)
	}
	f.term.Close()
	if err := f.be.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", state, err)
	}
}

// proxy forwards TCP connections to addr until blackhole, after which
// the connections it holds carry nothing more (a network that vanished
// without a word) while new ones are forwarded.
type proxy struct {
	addr  string
	mu    sync.Mutex
	holes []chan struct{}
}

func startProxy(t *testing.T, to string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &proxy{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			hole := make(chan struct{})
			p.mu.Lock()
			p.holes = append(p.holes, hole)
			p.mu.Unlock()
			pipe := func(dst, src net.Conn) {
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					select {
					case <-hole:
						continue // swallowed
					default:
					}
					if n > 0 {
						dst.Write(buf[:n])
					}
					if err != nil {
						return
					}
				}
			}
			go pipe(s, c)
			go pipe(c, s)
			t.Cleanup(func() { c.Close(); s.Close() })
		}
	}()
	return p
}

func (p *proxy) blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.holes {
		close(h)
	}
	p.holes = nil
}

// A connection that stops answering without closing is given up after
// the connect timeout and made again.
func TestAConnectionThatStopsAnsweringIsMadeAgain(t *testing.T) {
	f := setUp(t, true, nil)
	px := startProxy(t, f.srv.Addr)
	host, port, _ := net.SplitHostPort(px.addr)
	// The proxy's address is another name for the server: trust it too.
	tcp, _ := net.ResolveTCPAddr("tcp", px.addr)
	if err := Trust(f.cl.knownHosts, px.addr, tcp, f.srv.HostKey.PublicKey()); err != nil {
		t.Fatal(err)
	}
	o := options(f.srv, f.cl)
	o.Host, o.Port, o.Cwd, o.ConnectTimeout = host, atoi(port), f.work, time.Second
	be, _ := New(o)
	defer be.Close()
	term := terminal.New(terminal.Options{Backend: be})
	defer term.Close()
	tl := term.TerminalTool()
	call(t, context.Background(), tl, map[string]any{"command": "export STILL=here && echo data > f.txt"})
	px.blackhole()
	res := call(t, context.Background(), tl, map[string]any{"command": `echo "$STILL"`})
	if !strings.Contains(res.Content, "exit code: 0\n") || !strings.Contains(res.Content, "here\n") || f.srv.Logins.Load() != 2 {
		t.Fatalf("after the network vanished (%d logins):\n%s", f.srv.Logins.Load(), res.Content)
	}
	// A file operation on a connection idle for a while asks the peer
	// first, so it does not wait for ever on a vanished one.
	be.idleProbe = 0
	px.blackhole()
	files := file.New(file.Options{FS: be.FS(), Workdir: term.Workdir, ReadGuard: be.CheckRead, WriteGuard: be.CheckWrite})
	res = call(t, context.Background(), files.ReadFile(), map[string]any{"path": "f.txt"})
	if res.IsError || !strings.Contains(res.Content, "1|data") || f.srv.Logins.Load() != 3 {
		t.Fatalf("a read after the network vanished (%d logins): %s", f.srv.Logins.Load(), res.Content)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
