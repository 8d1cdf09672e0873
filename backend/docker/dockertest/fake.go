package dockertest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// Files in the fake's directory that make it fail the way an engine does.
const (
	// DaemonDown, when present, makes every command but `version
	// --client` fail as the CLI does when the daemon does not answer.
	DaemonDown = "daemon-down"
	// Unpullable lists, one per line, images `run` cannot pull.
	Unpullable = "unpullable"
)

// Main is the fake CLI: it logs its arguments to calls.log in the
// directory it lives in, keeps its containers there, and answers ps,
// run, exec, start, rm, inspect, info and version like the docker CLI.
// exec runs the command on this machine, in the given directory, with
// only PATH, HOSTNAME (the short id), HOME and the -e variables in its
// environment, and in a process group of its own, so that killing the
// client does not kill the command (as with a real engine).
func Main() {
	exe, err := os.Executable()
	if err != nil {
		fail(1, "fakedocker: %v", err)
	}
	dir := filepath.Dir(exe)
	bin := filepath.Base(os.Args[0])
	args := os.Args[1:]
	logCall(dir, bin, args)
	if len(args) == 0 {
		fail(1, "usage: %s COMMAND", bin)
	}
	if _, err := os.Stat(filepath.Join(dir, DaemonDown)); err == nil && !(args[0] == "version" && slices.Contains(args, "--client")) {
		fail(1, "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?")
	}
	f := &fake{dir: dir, bin: bin}
	switch args[0] {
	case "version":
		fmt.Println("Client: fake 27.0\nServer: fake 27.0")
	case "info":
		fmt.Println("fake engine")
	case "ps":
		f.ps(args[1:])
	case "run":
		f.lock(func() { f.run(args[1:]) })
	case "start":
		f.lock(func() { f.start(args[1:]) })
	case "rm":
		f.lock(func() { f.rm(args[1:]) })
	case "inspect":
		f.inspect(args[1:])
	case "exec":
		os.Exit(f.exec(args[1:]))
	default:
		fail(1, "%s: '%s' is not a %s command.", bin, args[0], bin)
	}
}

type fake struct{ dir, bin string }

func fail(code int, format string, a ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", a...)
	os.Exit(code)
}

func logCall(dir, bin string, args []string) {
	b, _ := json.Marshal(Call{Bin: bin, Args: args})
	f, err := os.OpenFile(logPath(dir), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fail(1, "fakedocker: log: %v", err)
	}
	f.Write(append(b, '\n'))
	f.Close()
}

// lock serialises the commands that change containers, as the daemon
// does (two runs with one --name: one wins, the other conflicts).
func (f *fake) lock(fn func()) {
	l, err := os.OpenFile(filepath.Join(f.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		fail(1, "fakedocker: lock: %v", err)
	}
	defer l.Close()
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX); err != nil {
		fail(1, "fakedocker: lock: %v", err)
	}
	fn()
}

// flags splits args into flag values (repeatable: every value kept) and
// the operands from the first non-flag on; boolean flags take no value.
func flags(args []string, boolean ...string) (map[string][]string, []string) {
	m := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			return m, args[i:]
		}
		if a == "--" {
			return m, args[i+1:]
		}
		if name, v, ok := strings.Cut(a, "="); ok {
			m[name] = append(m[name], v)
			continue
		}
		if slices.Contains(boolean, a) {
			m[a] = append(m[a], "true")
			continue
		}
		if i+1 >= len(args) {
			fail(125, "flag needs an argument: %s", a)
		}
		m[a] = append(m[a], args[i+1])
		i++
	}
	return m, nil
}

func first(m map[string][]string, names ...string) string {
	for _, n := range names {
		if v := m[n]; len(v) > 0 {
			return v[len(v)-1]
		}
	}
	return ""
}

func all(m map[string][]string, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, m[n]...)
	}
	return out
}

// templateFuncs are the CLI's template functions.
var templateFuncs = template.FuncMap{"json": func(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}}

// view is what ps and inspect templates see.
type view struct {
	Container
	ID, Names, State, Status, CreatedAt string
	Config                              struct{ Labels map[string]string }
	Running                             bool
}

func (v view) Label(name string) string { return v.Labels[name] }

func viewOf(c Container, noTrunc bool) view {
	v := view{Container: c, ID: c.ID, Names: c.Name, CreatedAt: c.Created.Format("2006-01-02 15:04:05 -0700 MST"), Running: c.Running}
	if !noTrunc {
		v.ID = c.ID[:12]
	}
	v.State, v.Status = "exited", "Exited (0)"
	if c.Running {
		v.State, v.Status = "running", "Up"
	}
	v.Config.Labels = c.Labels
	return v
}

func (f *fake) ps(args []string) {
	m, _ := flags(args, "-a", "--all", "-q", "--quiet", "--no-trunc")
	cs, err := Containers(f.dir)
	if err != nil {
		fail(1, "fakedocker: %v", err)
	}
	format := first(m, "--format")
	if format == "" || first(m, "-q", "--quiet") != "" {
		format = "{{.ID}}"
	}
	tmpl, err := template.New("ps").Funcs(templateFuncs).Parse(format)
	if err != nil {
		fail(125, "template parsing error: %v", err)
	}
	showAll := first(m, "-a", "--all") != ""
	for _, c := range cs {
		if !showAll && !c.Running {
			continue
		}
		if !matches(c, all(m, "--filter", "-f")) {
			continue
		}
		if err := tmpl.Execute(os.Stdout, viewOf(c, first(m, "--no-trunc") != "")); err != nil {
			fail(1, "template: %v", err)
		}
		fmt.Println()
	}
}

// matches applies ps filters: label=KEY, label=KEY=VALUE, name=, id=, status=.
func matches(c Container, filters []string) bool {
	for _, f := range filters {
		kind, val, _ := strings.Cut(f, "=")
		switch kind {
		case "label":
			k, v, withValue := strings.Cut(val, "=")
			got, ok := c.Labels[k]
			if !ok || (withValue && got != v) {
				return false
			}
		case "name":
			if !strings.Contains(c.Name, val) {
				return false
			}
		case "id":
			if !strings.HasPrefix(c.ID, val) {
				return false
			}
		case "status":
			if (val == "running") != c.Running {
				return false
			}
		default:
			fail(1, "invalid filter '%s'", kind)
		}
	}
	return true
}

func (f *fake) run(args []string) {
	m, rest := flags(args, "-d", "--detach", "--init", "--rm", "-i", "-t", "--read-only", "--privileged")
	if len(rest) == 0 {
		fail(125, `"%s run" requires at least 1 argument.`, f.bin)
	}
	image := rest[0]
	if b, err := os.ReadFile(filepath.Join(f.dir, Unpullable)); err == nil && slices.Contains(strings.Fields(string(b)), image) {
		fmt.Fprintf(os.Stderr, "Unable to find image '%s' locally\n", image)
		fail(125, "%s: Error response from daemon: pull access denied for %s, repository does not exist or may require 'docker login': denied: requested access to the resource is denied.", f.bin, image)
	}
	name := first(m, "--name")
	if name != "" {
		if c, ok := find(f.dir, name); ok && c.Name == name {
			fail(125, `%s: Error response from daemon: Conflict. The container name "/%s" is already in use by container "%s". You have to remove (or rename) that container to be able to reuse that name.`, f.bin, name, c.ID)
		}
	}
	var id [32]byte
	rand.Read(id[:])
	c := Container{ID: hex.EncodeToString(id[:]), Name: name, Image: image, Labels: map[string]string{},
		Running: true, Created: time.Now(), RunArgs: args, Workdir: first(m, "-w", "--workdir")}
	if c.Name == "" {
		c.Name = "fake_" + c.ID[:8]
	}
	for _, l := range all(m, "--label", "-l") {
		k, v, _ := strings.Cut(l, "=")
		c.Labels[k] = v
	}
	if err := Put(f.dir, c); err != nil {
		fail(1, "fakedocker: %v", err)
	}
	fmt.Println(c.ID)
}

func (f *fake) start(args []string) {
	for _, ref := range args {
		c, ok := find(f.dir, ref)
		if !ok {
			fail(1, "Error response from daemon: No such container: %s", ref)
		}
		c.Running = true
		Put(f.dir, c)
		fmt.Println(ref)
	}
}

func (f *fake) rm(args []string) {
	m, refs := flags(args, "-f", "--force", "-v")
	code := 0
	for _, ref := range refs {
		c, ok := find(f.dir, ref)
		if !ok {
			fmt.Fprintf(os.Stderr, "Error response from daemon: No such container: %s\n", ref)
			code = 1
			continue
		}
		if c.Running && first(m, "-f", "--force") == "" {
			fmt.Fprintf(os.Stderr, "Error response from daemon: cannot remove container %q: container is running: stop the container before removing or force remove\n", c.Name)
			code = 1
			continue
		}
		Remove(f.dir, c.ID)
		fmt.Println(ref)
	}
	os.Exit(code)
}

// inspectView is what inspect templates see: the engine's JSON shape.
type inspectView struct {
	ID, Id, Name, Created string
	State                 struct {
		Running bool
		Status  string
	}
	Config struct {
		Image  string
		Labels map[string]string
	}
}

func inspectViewOf(c Container) inspectView {
	v := inspectView{ID: c.ID, Id: c.ID, Name: "/" + c.Name, Created: c.Created.Format(time.RFC3339Nano)}
	v.State.Running, v.State.Status = c.Running, "exited"
	if c.Running {
		v.State.Status = "running"
	}
	v.Config.Image, v.Config.Labels = c.Image, c.Labels
	return v
}

func (f *fake) inspect(args []string) {
	m, refs := flags(args)
	format := first(m, "--format", "-f")
	code := 0
	for _, ref := range refs {
		c, ok := find(f.dir, ref)
		if !ok {
			fmt.Fprintf(os.Stderr, "Error: No such object: %s\n", ref)
			code = 1
			continue
		}
		if format == "" {
			b, _ := json.MarshalIndent([]Container{c}, "", "  ")
			fmt.Println(string(b))
			continue
		}
		tmpl, err := template.New("inspect").Funcs(templateFuncs).Parse(format)
		if err != nil {
			fail(1, "template parsing error: %v", err)
		}
		if err := tmpl.Execute(os.Stdout, inspectViewOf(c)); err != nil {
			fail(1, "template: %v", err)
		}
		fmt.Println()
	}
	os.Exit(code)
}

// exec runs the command here, as the engine would in the container, and
// returns its exit status (126 when it cannot be started, 127 when it is
// not found, 128+n when signal n killed it).
func (f *fake) exec(args []string) int {
	m, rest := flags(args, "-i", "--interactive", "-t", "--tty", "-d", "--detach")
	if len(rest) < 2 {
		fail(1, `"%s exec" requires at least 2 arguments.`, f.bin)
	}
	c, ok := find(f.dir, rest[0])
	if !ok {
		fail(1, "Error response from daemon: No such container: %s", rest[0])
	}
	if !c.Running {
		fail(1, "Error response from daemon: container %s is not running", c.ID)
	}
	cmd := exec.Command(rest[1], rest[2:]...)
	cmd.Dir = or(first(m, "-w", "--workdir"), c.Workdir, "/")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOSTNAME=" + c.ID[:12], "HOME=/root"}
	for _, e := range all(m, "-e", "--env") {
		if !strings.Contains(e, "=") {
			v, ok := os.LookupEnv(e)
			if !ok {
				continue
			}
			e += "=" + v
		}
		cmd.Env = append(cmd.Env, e)
	}
	if first(m, "-i", "--interactive") != "" {
		cmd.Stdin = os.Stdin
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		code := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			code = 127
		}
		fmt.Fprintf(os.Stderr, "OCI runtime exec failed: exec failed: unable to start container process: %v: unknown\n", err)
		return code
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return 0
}

func or(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
