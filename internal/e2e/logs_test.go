package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// logRecords reads the JSON records of a hermes.log.
func logRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("log: %v", err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue // an empty file
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func TestOneShotWritesMaskedJSONLogLinesWithItsSession(t *testing.T) {
	known := "Xq7pL2vR9tK4mN8wZ3"                           // secret by value: the environment holds it
	shaped := "ghp_" + strings.Repeat("aB3dE6gH9k", 4)[:36] // secret by shape alone
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo %s %s >/dev/null"}`, known, shaped)}}},
		llmtest.Reply{Text: "done"},
	)
	home := t.TempDir()
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := hermesEnv(t, []string{"DEPLOY_SECRET=" + known}, home, home, "-z", "run it", "--provider", "custom",
		"--base-url", srv.URL(), "--model", "test-model", "--usage-file", usage)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sessionID := readUsage(t, usage)["session_id"].(string)
	path := filepath.Join(home, "logs", "hermes.log")
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), known) || strings.Contains(string(raw), shaped) {
		t.Fatalf("a secret reached the log:\n%s", raw)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", st.Mode().Perm())
	}
	msgs := map[string]map[string]any{}
	for _, rec := range logRecords(t, path) {
		msgs[rec["msg"].(string)] = rec
		if rec["cmd"] != "cli" || rec["pid"] == nil || rec["time"] == nil || rec["level"] == nil {
			t.Fatalf("record without its command, process, time or level: %v", rec)
		}
	}
	call, ok := msgs["tool call"]
	if !ok || call["tool"] != "terminal" || !strings.Contains(call["args"].(string), "[REDACTED]") || call["session"] != sessionID {
		t.Fatalf("tool call record %v (session %s)", call, sessionID)
	}
	for _, m := range []string{"conversation opened", "turn done"} {
		if msgs[m] == nil || msgs[m]["session"] != sessionID {
			t.Fatalf("no %q record for session %s: %v", m, sessionID, msgs)
		}
	}

	// The last two records, as JSON lines.
	r = hermes(t, home, home, "logs", "-n", "2", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, %d lines: %q %s", r.code, len(lines), r.stdout, r.stderr)
	}
	all := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if lines[0] != all[len(all)-2] || lines[1] != all[len(all)-1] {
		t.Fatalf("not the last two records:\n%s\nlog:\n%s", r.stdout, raw)
	}
}

// writeLog writes records to a home's hermes.log: each is time offset
// from now, level, session, message.
type logLine struct {
	ago     time.Duration
	level   string
	session string
	msg     string
}

func writeLog(t *testing.T, path string, lines ...logLine) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		rec := map[string]any{"time": time.Now().Add(-l.ago).Format(time.RFC3339Nano), "level": l.level, "msg": l.msg}
		if l.session != "" {
			rec["session"] = l.session
		}
		b, _ := json.Marshal(rec)
		fmt.Fprintf(f, "%s\n", b)
	}
}

func TestLogsFilterByLevelSessionAndTime(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "logs", "hermes.log")
	writeLog(t, filepath.Join(home, "logs", "hermes.log.1"), logLine{3 * time.Hour, "INFO", "20261206_aaa", "rotated old"})
	writeLog(t, path,
		logLine{2 * time.Hour, "WARN", "20261206_aaa", "warned long ago"},
		logLine{30 * time.Minute, "INFO", "20261206_bbb", "info recently"},
		logLine{10 * time.Minute, "ERROR", "20261206_aaa", "failed recently"},
		logLine{time.Minute, "DEBUG", "", "debug now"},
	)
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"-n", "0"}, []string{"rotated old", "warned long ago", "info recently", "failed recently", "debug now"}},
		{[]string{"--level", "warn"}, []string{"warned long ago", "failed recently"}},
		{[]string{"--session", "20261206_aaa"}, []string{"rotated old", "warned long ago", "failed recently"}},
		{[]string{"--since", "1h"}, []string{"info recently", "failed recently", "debug now"}},
		{[]string{"--since", "1h", "--level", "info", "--session", "20261206_b"}, []string{"info recently"}},
		{[]string{"-n", "1", "--session", "20261206_aaa"}, []string{"failed recently"}},
	}
	for _, c := range cases {
		r := hermes(t, home, home, append([]string{"logs", "--json"}, c.args...)...)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var m map[string]any
			if line == "" {
				continue
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%v: not JSON: %q", c.args, line)
			}
			got = append(got, m["msg"].(string))
		}
		if r.code != 0 || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("hermes logs %v: exit %d, got %q, want %q (%s)", c.args, r.code, got, c.want, r.stderr)
		}
	}
	// Without --json, a line a person reads: time, level, message, attributes.
	r := hermes(t, home, home, "logs", "-n", "1", "--level", "error")
	if r.code != 0 || !contains(r.stdout, "ERROR", "failed recently", "session=20261206_aaa") || strings.HasPrefix(r.stdout, "{") {
		t.Fatalf("exit %d: %q", r.code, r.stdout)
	}
	if r := hermes(t, home, home, "logs", "--since", "yesterday-ish"); r.code != 2 || !strings.Contains(r.stderr, "--since") {
		t.Fatalf("bad --since: exit %d %q", r.code, r.stderr)
	}
}

func TestLogRotationBySizeKeepsTheCap(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("logging:\n  max_size: 2KB\n  max_files: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(home, "logs")
	path := filepath.Join(logs, "hermes.log")
	// Full logs before the run: the newest rotated file is kept, the
	// oldest dropped.
	writeLog(t, path+".2", logLine{time.Hour, "INFO", "", "oldest, to be dropped"})
	writeLog(t, path+".1", logLine{time.Hour, "INFO", "", "older, to be kept"})
	var fill []logLine
	for i := range 20 {
		fill = append(fill, logLine{time.Hour, "INFO", "", fmt.Sprintf("filler %02d", i)})
	}
	writeLog(t, path, fill...)
	for range 3 {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"true"}`}}}, llmtest.Reply{Text: "ok"})
		if r := hermes(t, home, home, "-z", "go", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	entries, _ := os.ReadDir(logs)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if info, _ := e.Info(); strings.HasPrefix(e.Name(), "hermes.log") && info.Size() > 2048 {
			t.Errorf("%s is %d bytes, over the 2KB cap", e.Name(), info.Size())
		}
	}
	if strings.Join(names, " ") != "hermes.log hermes.log.1 hermes.log.2 hermes.log.lock" {
		t.Fatalf("log directory holds %v, want hermes.log and two rotated files", names)
	}
	r := hermes(t, home, home, "logs", "-n", "0", "--json")
	if strings.Contains(r.stdout, "oldest, to be dropped") || !strings.Contains(r.stdout, "turn done") {
		t.Fatalf("after rotation, hermes logs shows:\n%s", r.stdout)
	}
}

func TestLogsFollowPrintsNewRecordsAcrossRotation(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "logs", "hermes.log")
	writeLog(t, path, logLine{time.Minute, "INFO", "", "before"})
	cmd := exec.Command(hermesBin, "logs", "-f", "--json", "-n", "5")
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	msgs := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				msgs <- fmt.Sprint(m["msg"])
			}
		}
		close(msgs)
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case m := <-msgs:
			if m != want {
				t.Fatalf("followed %q, want %q", m, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q never printed", want)
		}
	}
	expect("before")
	writeLog(t, path, logLine{0, "INFO", "", "appended"})
	expect("appended")
	// Another process rotates: the old file moves away, a new one starts.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	writeLog(t, path, logLine{0, "WARN", "", "after rotation"})
	expect("after rotation")
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hermes logs -f after SIGINT: %v", err)
	}
}

// hermes serve logs its conversations to the same file, with their
// sessions, and keeps them off its stderr.
func TestServeLogsConversationsToTheFileOnly(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"true"}`}}}, llmtest.Reply{Text: "served"})
	home, work := t.TempDir(), t.TempDir()
	s := startServe(t, home, work, []string{"API_SERVER_KEY=sk-serve-log-test-Zq81"},
		"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/v1/chat/completions",
		strings.NewReader(`{"model":"hermes-agent","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer sk-serve-log-test-Zq81")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "served") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	s.stop(t)
	raw, _ := os.ReadFile(filepath.Join(home, "logs", "hermes.log"))
	if strings.Contains(string(raw), "sk-serve-log-test-Zq81") {
		t.Fatalf("the API key reached the log:\n%s", raw)
	}
	var done map[string]any
	for _, rec := range logRecords(t, filepath.Join(home, "logs", "hermes.log")) {
		if rec["cmd"] != "serve" {
			t.Fatalf("record of %v in a serve-only home", rec["cmd"])
		}
		if rec["msg"] == "turn done" {
			done = rec
		}
	}
	if done == nil || done["session"] == "" || done["model"] != "test-model" {
		t.Fatalf("no turn done record with its session:\n%s", raw)
	}
	if strings.Contains(s.stderr.String(), "tool call") {
		t.Fatalf("conversation records on stderr:\n%s", s.stderr)
	}
}

// A cron run logs its conversation, with the session and the source.
func TestCronRunLogsItsConversation(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "all green"} })
	home, work := t.TempDir(), t.TempDir()
	r := hermes(t, home, work, append([]string{"cron", "add", "--name", "nightly", "--schedule", "every 1h", "--prompt", "check",
		"--deliver", "local"}, cronModel(srv)...)...)
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || id == "" {
		t.Fatalf("add: exit %d %q %s", r.code, r.stdout, r.stderr)
	}
	if r = hermes(t, home, work, "cron", "run", id); r.code != 0 {
		t.Fatalf("run: exit %d %s", r.code, r.stderr)
	}
	var opened, done map[string]any
	for _, rec := range logRecords(t, filepath.Join(home, "logs", "hermes.log")) {
		switch rec["msg"] {
		case "conversation opened":
			opened = rec
		case "turn done":
			done = rec
		}
	}
	if opened == nil || opened["cmd"] != "cron" || opened["source"] != "cron" || done == nil || done["session"] != opened["session"] {
		t.Fatalf("opened %v, done %v", opened, done)
	}
}

// Processes appending at once, with rotations among them, leave every
// record whole and none lost.
func TestConcurrentProcessesShareTheLog(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("logging:\n  max_size: 1KB\n  max_files: 100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const runs = 4
	done := make(chan result, runs)
	for range runs {
		go func() {
			cmd := exec.Command(hermesBin, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
			cmd.Dir = home
			cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
			out, err := cmd.CombinedOutput()
			code := 0
			if err != nil {
				code = 1
			}
			done <- result{stdout: string(out), code: code}
		}()
	}
	for range runs {
		if r := <-done; r.code != 0 {
			t.Fatalf("a run failed: %s", r.stdout)
		}
	}
	files, _ := filepath.Glob(filepath.Join(home, "logs", "hermes.log*"))
	pids := map[float64]int{}
	for _, f := range files {
		if strings.HasSuffix(f, ".lock") {
			continue
		}
		for _, rec := range logRecords(t, f) { // fails on a broken line
			if rec["msg"] == "turn done" {
				pids[rec["pid"].(float64)]++
			}
		}
	}
	if len(files) < 3 {
		t.Fatalf("no rotation happened: %v", files)
	}
	if len(pids) != runs {
		t.Fatalf("turn done records from %d processes, want %d: %v", len(pids), runs, pids)
	}
}

// A log that cannot be written is a warning; the run goes on.
func TestARunWhoseLogCannotBeWrittenWarnsAndGoesOn(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "answered"})
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "logs"), []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answered" || !contains(r.stderr, "warning", "log") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
