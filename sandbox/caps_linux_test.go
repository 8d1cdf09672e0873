package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// capsAndIDs prints the command's capability sets, its id maps and ids.
const capsAndIDs = `grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status
echo "uid_map: $(cat /proc/self/uid_map)"
echo "gid_map: $(cat /proc/self/gid_map)"
echo "id: $(id -u) $(id -g)"
sh -c 'grep CapBnd /proc/self/status' | sed 's/^/child /'`

func checkNoCapabilities(t *testing.T, out string) {
	t.Helper()
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "child CapBnd"} {
		if !strings.Contains(out, set+":\t0000000000000000\n") {
			t.Errorf("%s is not empty:\n%s", set, out)
		}
	}
	// No setuid or file-capability program can give any back.
	if !strings.Contains(out, "NoNewPrivs:\t1\n") {
		t.Errorf("no_new_privs is not set:\n%s", out)
	}
	if want := fmt.Sprintf("id: %d %d\n", os.Getuid(), os.Getgid()); !strings.Contains(out, want) {
		t.Errorf("want %q: the command's ids must be the user's own:\n%s", want, out)
	}
}

func TestTheCommandHoldsNoCapabilities(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	out, code := b.run(t, p, "", capsAndIDs)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoCapabilities(t, out)
	if Probe().UserNamespace {
		// Only the user's own ids exist in the namespace: one line each.
		want := fmt.Sprintf("uid_map: %[1]d %[1]d 1\ngid_map: %[2]d %[2]d 1\nid:", os.Getuid(), os.Getgid())
		if !strings.Contains(normalizeSpaces(out), want) {
			t.Errorf("want %q:\n%s", want, out)
		}
	}
}

func normalizeSpaces(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

func TestWithoutAUserNamespaceRootHoldsNoCapabilitiesEither(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root runs commands without a user namespace")
	}
	st := Probe()
	st.UserNamespace = false
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	out, code := b.runWith(t, st, p, "", capsAndIDs)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	checkNoCapabilities(t, out)
}

func TestChownToAnotherUserFails(t *testing.T) {
	// In a user namespace the other user does not exist (EINVAL); without
	// one only a capability would let it through (EPERM).
	noUserNS := Probe()
	noUserNS.UserNamespace = false
	for _, sys := range []struct {
		name string
		st   Status
		want string
	}{{"user namespace", Probe(), "Invalid argument"}, {"no user namespace", noUserNS, "Operation not permitted"}} {
		t.Run(sys.name, func(t *testing.T) {
			if !sys.st.UserNamespace && os.Getuid() != 0 {
				t.Skip("only root runs commands without a user namespace")
			}
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			file := filepath.Join(b.ws, "file")
			out, code := b.runWith(t, sys.st, p, "", `chown 4242:4242 "$1"`, file)
			if meta := metaOf(t, file); meta.uid == 4242 || meta.gid == 4242 {
				t.Errorf("a command gave a workspace file to another user:\n%s", out)
			}
			if code == 0 || !strings.Contains(out, sys.want) {
				t.Errorf("chown: exit %d, want %s:\n%s", code, sys.want, out)
			}
		})
	}
}

// asUserEnv makes the test binary, started as another user, run the
// script in it sandboxed in the workspace it names and print what the
// script printed, or why it did not run.
const asUserEnv = "HERMES_SANDBOX_TEST_AS_USER"

func init() { testRoles[asUserEnv] = runAsUser }

func runAsUser(spec string) {
	var run struct{ Workdir, Script string }
	if err := json.Unmarshal([]byte(spec), &run); err != nil {
		fmt.Println("spec:", err)
		os.Exit(2)
	}
	p, err := NewPolicy(Options{Mode: WorkspaceWrite, Workdir: run.Workdir, Home: filepath.Join(run.Workdir, "home"), Scratch: []string{filepath.Join(run.Workdir, "tmp")}})
	if err != nil {
		fmt.Println("policy:", err)
		os.Exit(2)
	}
	if e := p.Enforcement(); e.Level != Full {
		fmt.Println("not enforced:", e)
		os.Exit(3)
	}
	cmd := exec.Command("bash", "-c", run.Script)
	cmd.Dir = run.Workdir
	if err := p.Wrap(cmd); err != nil {
		fmt.Println("wrap:", err)
		os.Exit(2)
	}
	out, _ := cmd.CombinedOutput()
	os.Stdout.Write(out)
	os.Exit(0)
}

func TestAnotherUsersCommandKeepsItsIDsAndHoldsNoCapabilities(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("the tests run as a user already (TestTheCommandHoldsNoCapabilities)")
	}
	const nobody = 65534
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "work")
	for _, d := range []string{ws, filepath.Join(ws, "tmp"), filepath.Join(ws, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, nobody, nobody)
	}
	outside := filepath.Join(dir, "outside")
	// The user's own file: only the read-only mount stops the chmod.
	os.WriteFile(outside, []byte(original), 0o666)
	os.Chmod(outside, 0o666)
	os.Chown(outside, nobody, nobody)
	spec, _ := json.Marshal(map[string]string{"Workdir": ws, "Script": capsAndIDs + "\necho inside > file && cat file\nchmod 600 " + outside})
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), asUserEnv + "=" + string(spec)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 3 {
		t.Skipf("the sandbox is not enforced for another user here: %s", out)
	}
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	s := string(out)
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "child CapBnd"} {
		if !strings.Contains(s, set+":\t0000000000000000\n") {
			t.Errorf("%s is not empty", set)
		}
	}
	want := fmt.Sprintf("uid_map: %[1]d %[1]d 1\ngid_map: %[1]d %[1]d 1\nid: %[1]d %[1]d\n", nobody)
	if !strings.Contains(normalizeSpaces(s), want) {
		t.Errorf("want %q", want)
	}
	if !strings.Contains(s, "inside\n") || !strings.Contains(s, "Read-only file system") {
		t.Errorf("want a write in the workspace to work and a chmod outside to fail")
	}
	if st, _ := os.Stat(outside); st.Mode().Perm() != 0o666 {
		t.Errorf("the chmod outside went through: %v", st.Mode())
	}
	if t.Failed() {
		t.Logf("the command printed:\n%s", s)
	}
}
