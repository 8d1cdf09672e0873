package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// approvals check prints the verdict for a command and runs nothing.
func TestApprovalsCheckPrintsTheVerdictWithoutRunning(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		verdict string
		key     string
	}{
		{[]string{"ls", "-la"}, "harmless", ""},
		{[]string{"rm", "-rf", "build"}, "ask", "recursive_delete"},
		{[]string{"X=/; rm -rf $X"}, "blocked", "delete_root"},
		{[]string{"git", "reset", "--hard"}, "ask", "git_reset_hard"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home, work := t.TempDir(), t.TempDir()
			r := hermes(t, home, work, append([]string{"approvals", "check", "--json", "--"}, tc.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var v struct {
				Verdict  string `json:"verdict"`
				Findings []struct {
					Key         string `json:"key"`
					Description string `json:"description"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatalf("%v: %s", err, r.stdout)
			}
			if v.Verdict != tc.verdict {
				t.Errorf("verdict = %q, want %q", v.Verdict, tc.verdict)
			}
			if tc.key != "" && (len(v.Findings) == 0 || !strings.Contains(r.stdout, `"`+tc.key+`"`)) {
				t.Errorf("findings %+v lack %q", v.Findings, tc.key)
			}
			text := hermes(t, home, work, append([]string{"approvals", "check", "--"}, tc.args...)...)
			if !strings.HasPrefix(text.stdout, tc.verdict) || tc.key != "" && !strings.Contains(text.stdout, tc.key) {
				t.Errorf("text output: %q", text.stdout)
			}
		})
	}
	home, work := t.TempDir(), t.TempDir()
	hermes(t, home, work, "approvals", "check", "--", "touch ran")
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("approvals check ran the command")
	}
}

// checkVerdict runs approvals check --json for cmd in workdir and returns
// the verdict and the keys of the findings.
func checkVerdict(t *testing.T, home, workdir, cmd string) (string, []string) {
	t.Helper()
	r := hermes(t, home, workdir, "approvals", "check", "--json", "--", cmd)
	if r.code != 0 {
		t.Fatalf("%q: exit %d: %s", cmd, r.code, r.stderr)
	}
	var v struct {
		Verdict  string `json:"verdict"`
		Findings []struct {
			Key string `json:"key"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%q: %v: %s", cmd, err, r.stdout)
	}
	var keys []string
	for _, f := range v.Findings {
		keys = append(keys, f.Key)
	}
	return v.Verdict, keys
}

// Commands carried in other commands' options are judged as what they
// run, with --yolo too (blocked); what only carries data stays harmless
// or asks; a command the shell cannot parse is refused.
func TestApprovalsCheckJudgesCarriedCommandsAsTheirPayload(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	for _, tc := range []struct{ cmd, verdict, key string }{
		{"su --comm reboot", "blocked", "shutdown"},
		{"su --sess=reboot", "blocked", "shutdown"},
		{"su -c 'echo hi' -c reboot", "blocked", "shutdown"},
		{"su root -- -c 'rm -rf /'", "blocked", "delete_root"},
		{"runuser -u nobody -- reboot", "blocked", "shutdown"},
		{"env -Sreboot", "blocked", "shutdown"},
		{"env --s=reboot", "blocked", "shutdown"},
		{"env --s''=reboot", "blocked", "shutdown"},
		{`env $'-S\x72eboot'`, "blocked", "shutdown"},
		{"env -i -C /tmp -u HOME -a x -S reboot", "blocked", "shutdown"},
		{"sh -c -x 'rm -rf /'", "blocked", "delete_root"},
		{"bash -ce -- reboot", "blocked", "shutdown"},
		{"echo hi\r#; reboot", "blocked", "shutdown"},
		{"echo hi\u00a0#; reboot", "blocked", "shutdown"},
		{"echo 'unterminated", "blocked", "unparsed_command"},
		{"ls; echo \"x", "blocked", "unparsed_command"},
		{"env -S/bin/echo reboot", "harmless", ""},
		{"timeout --foreground echo sh -c reboot", "harmless", ""},
		{"su -c 'echo reboot'", "harmless", ""},
		{"git -c alias.x='!reboot' status", "ask", "git_inline_alias"},
		{"git config alias.x '!rm -rf /'", "ask", "git_config_command"},
		{"killall -l", "harmless", ""},
		{"killall -V", "harmless", ""},
		{"pkill -f nginx", "harmless", ""},
		{deepNest("ls", 8), "blocked", "unparsable"},
		{deepNest("ls", 5), "harmless", ""},

		// Programs that launch a command are judged as that command.
		{"script -qc reboot /dev/null", "blocked", "shutdown"},
		{"script --command='rm -rf ./build'", "ask", "recursive_delete"},
		{"flock /tmp/x.lock -c reboot", "blocked", "shutdown"},
		{"flock -n /tmp/x.lock rm -rf ./build", "ask", "recursive_delete"},
		{"unshare --user --map-root-user reboot", "blocked", "shutdown"},
		{"setpriv --reuid=0 reboot", "blocked", "shutdown"},
		{"nsenter -t 1 -m reboot", "blocked", "shutdown"},
		{"nsenter -t 1 -m", "ask", "namespace_shell"},
		{"sg wheel -c reboot", "blocked", "shutdown"},
		{"pkexec rm -rf ./build", "ask", "recursive_delete"},
		{"sudo -nu root reboot", "blocked", "shutdown"},
		{"systemd-run --scope --user reboot", "blocked", "shutdown"},
		{"tmux new-session -d 'rm -rf ./build'", "ask", "recursive_delete"},
		{"tmux send-keys -t 0 reboot Enter", "blocked", "shutdown"},
		{"tmux send-keys -t 0 rebootx BSpace Enter", "ask", "typed_keys_edit"},
		{"screen -dm reboot", "blocked", "shutdown"},
		{"parallel sh -c ::: reboot", "blocked", "shutdown"},
		{"at now <<< reboot", "blocked", "shutdown"},
		{"echo 'rm -rf ./build' | batch", "ask", "recursive_delete"},
		{"echo reboot | su", "blocked", "shutdown"},
		{"script -q /dev/null", "harmless", ""},
		{"flock /tmp/x.lock true", "harmless", ""},
		{"flock 3", "harmless", ""},
		{"tmux ls", "harmless", ""},
		{"tmux send-keys -t 0 'make test' Enter", "harmless", ""},
		{"systemd-run --help", "harmless", ""},
		{"parallel echo ::: reboot", "harmless", ""},
		{"at -l", "harmless", ""},
	} {
		name := tc.cmd
		if len(name) > 40 {
			name = name[:40] + "..."
		}
		t.Run(name, func(t *testing.T) {
			verdict, keys := checkVerdict(t, home, work, tc.cmd)
			if verdict != tc.verdict || tc.key != "" && !slices.Contains(keys, tc.key) {
				t.Errorf("verdict %s %v, want %s %s", verdict, keys, tc.verdict, tc.key)
			}
		})
	}
}

// deepNest wraps cmd in n levels of sh -c.
func deepNest(cmd string, n int) string {
	for range n {
		cmd = "sh -c " + shellQuote(cmd)
	}
	return cmd
}

// srvWorkspace is a fresh workspace under /srv, a system directory.
func srvWorkspace(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/srv", "hermes-test-")
	if err != nil {
		t.Skipf("no workspace can be made under /srv here: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Deleting a file of a workspace that lies under /srv is the user's
// work: approvals check finds nothing to ask there, and a session with
// nobody to ask deletes it; from another workspace the same path is a
// file in a system directory.
func TestDeletingAFileOfAWorkspaceUnderSrvAsksNothing(t *testing.T) {
	ws, home := srvWorkspace(t), t.TempDir()
	file := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(file, []byte("old notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if verdict, keys := checkVerdict(t, home, ws, "rm "+file); verdict != "harmless" {
		t.Errorf("in the workspace: %s %v", verdict, keys)
	}
	if verdict, keys := checkVerdict(t, home, t.TempDir(), "rm "+file); verdict != "ask" || !slices.Contains(keys, "delete_system_file") {
		t.Errorf("from elsewhere: %s %v", verdict, keys)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("rm " + file)...)
	r := hermes(t, home, ws, "-z", "remove the old notes", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if res := toolResults(srv.Requests()[1]); len(res) != 1 || strings.Contains(res[0], "Command not run") {
		t.Fatalf("results %q", res)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the file is still there: %v", err)
	}
}

// With --yolo a command the shell cannot parse is still refused, with a
// message that says to fix it.
func TestUnparsableCommandIsRefusedWithYolo(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("touch ran; echo 'unterminated")...)
	r := hermes(t, home, work, "-z", "go", "--yolo", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if res := toolResults(srv.Requests()[1]); len(res) != 1 || !contains(res[0], "BLOCKED", "cannot parse", "quotes") {
		t.Fatalf("results %q", res)
	}
	if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
		t.Error("part of the command ran")
	}
}
