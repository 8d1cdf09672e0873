package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func mustExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("%s exists (err %v)", path, err)
	}
}

func sessionCount(t *testing.T, home string, env []string, args ...string) int {
	t.Helper()
	r := hermesEnv(t, env, home, t.TempDir(), append(args, "sessions", "list", "--json")...)
	if r.code != 0 {
		t.Fatalf("sessions list: exit %d\n%s", r.code, r.stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	return len(rows)
}

// -p NAME and HERMES_PROFILE=NAME run against $HERMES_HOME/profiles/NAME:
// the session goes there, the main home gets none.
func TestProfileFlagAndVariableSelectTheProfileHome(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "hi"} })
	home := t.TempDir()
	if r := hermes(t, home, t.TempDir(), "profile", "create", "work"); r.code != 0 {
		t.Fatalf("create: exit %d\n%s", r.code, r.stderr)
	}
	prof := filepath.Join(home, "profiles", "work")
	model := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"-p", "work"}},
		{"variable", []string{"HERMES_PROFILE=work"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append(append([]string{}, tc.args...), "-z", "hello"), model...)
			r := hermesEnv(t, tc.env, home, t.TempDir(), args...)
			if r.code != 0 || strings.TrimSpace(r.stdout) != "hi" {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			mustExist(t, filepath.Join(prof, "state.db"))
			mustNotExist(t, filepath.Join(home, "state.db"))
		})
	}
	if n := sessionCount(t, home, nil, "-p", "work"); n != 2 {
		t.Fatalf("profile sessions %d, want 2", n)
	}
	if n := sessionCount(t, home, nil); n != 0 {
		t.Fatalf("main home sessions %d, want 0", n)
	}

	// hermes status names the profile and its home.
	r := hermesEnv(t, []string{"HERMES_PROFILE=work"}, home, t.TempDir(), "status", "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || r.code != 0 {
		t.Fatalf("status: exit %d %v\n%s\n%s", r.code, err, r.stdout, r.stderr)
	}
	if st["profile"] != "work" || st["home"] != prof || st["sessions"] != float64(2) {
		t.Fatalf("status %v", st)
	}
	if r := hermes(t, home, t.TempDir(), "status"); r.code != 0 || !strings.Contains(r.stdout, "default") {
		t.Fatalf("status of the main home: exit %d\n%s", r.code, r.stdout)
	}
}

// hermes profile use makes a profile the default of runs that name none;
// it cannot be deleted while it is; -p default still reaches the main home.
func TestProfileUseListShowAndDelete(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "hi"} })
	home := t.TempDir()
	for _, args := range [][]string{{"profile", "create", "a"}, {"profile", "create", "b"}, {"profile", "use", "b"}} {
		if r := hermes(t, home, t.TempDir(), args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	r := hermes(t, home, t.TempDir(), "-z", "hello", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustExist(t, filepath.Join(home, "profiles", "b", "state.db"))
	mustNotExist(t, filepath.Join(home, "state.db"))

	r = hermes(t, home, t.TempDir(), "profile", "list", "--json")
	var rows []struct {
		Name            string
		Active, Current bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(rows) != 3 || rows[0].Name != "default" || rows[2].Name != "b" || !rows[2].Active || !rows[2].Current || rows[0].Active {
		t.Fatalf("list %+v", rows)
	}
	r = hermes(t, home, t.TempDir(), "-p", "default", "profile", "show", "--json")
	var info map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info["name"] != "default" || info["home"] != home || info["current"] != true {
		t.Fatalf("show: %v %s", err, r.stdout)
	}

	if r := hermes(t, home, t.TempDir(), "profile", "delete", "b", "--yes"); r.code == 0 || !strings.Contains(r.stderr, "active") {
		t.Fatalf("deleting the active profile: exit %d\n%s", r.code, r.stderr)
	}
	mustExist(t, filepath.Join(home, "profiles", "b"))
	// Without a terminal to ask on, delete needs --yes.
	if r := hermes(t, home, t.TempDir(), "profile", "delete", "a"); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("delete without --yes: exit %d\n%s", r.code, r.stderr)
	}
	mustExist(t, filepath.Join(home, "profiles", "a"))
	if r := hermes(t, home, t.TempDir(), "profile", "delete", "a", "--yes"); r.code != 0 {
		t.Fatalf("delete: exit %d\n%s", r.code, r.stderr)
	}
	mustNotExist(t, filepath.Join(home, "profiles", "a"))
}

// --clone copies config.yaml, .env (still private) and skills, not sessions.
func TestProfileCreateCloneCopiesSettingsNotSessions(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "hi"} })
	home := t.TempDir()
	writeConfig(t, home, "provider: custom\nbase_url: "+srv.URL()+"\nmodel: m\n")
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("SOME_TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(home, "skills", "greet")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: greet\ndescription: Say hello.\n---\nSay hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := hermes(t, home, t.TempDir(), "-z", "hello"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r := hermes(t, home, t.TempDir(), "profile", "create", "copy", "--clone"); r.code != 0 {
		t.Fatalf("clone: exit %d\n%s", r.code, r.stderr)
	}
	prof := filepath.Join(home, "profiles", "copy")
	mustExist(t, filepath.Join(prof, "config.yaml"))
	mustExist(t, filepath.Join(prof, "skills", "greet", "SKILL.md"))
	if fi, err := os.Stat(filepath.Join(prof, ".env")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env copy: %v %v", fi, err)
	}
	mustNotExist(t, filepath.Join(prof, "state.db"))
	// The clone works as its source did.
	if r := hermes(t, home, t.TempDir(), "-p", "copy", "-z", "hello"); r.code != 0 || strings.TrimSpace(r.stdout) != "hi" {
		t.Fatalf("run in the clone: exit %d\n%s", r.code, r.stderr)
	}
}

// Names that would leave profiles/ are refused; so is a profile that
// does not exist, rather than a new empty home made on a typo.
func TestProfileNamesAreValidated(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"-p", "../evil", "status"},
		{"profile", "create", "a/b"},
		{"profile", "create", ".."},
		{"profile", "create", ".hidden"},
	} {
		if r := hermes(t, home, t.TempDir(), args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	r := hermesEnv(t, []string{"HERMES_PROFILE=nosuch"}, home, t.TempDir(), "status")
	if r.code != 2 || !strings.Contains(r.stderr, "hermes profile create nosuch") {
		t.Fatalf("unknown profile: exit %d\n%s", r.code, r.stderr)
	}
	mustNotExist(t, filepath.Join(home, "profiles", "nosuch"))
	// An active profile deleted by hand stops runs, not hermes profile,
	// which puts it right.
	if err := os.WriteFile(filepath.Join(home, "active_profile"), []byte("gone\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := hermes(t, home, t.TempDir(), "status"); r.code != 2 || !strings.Contains(r.stderr, "hermes profile use default") {
		t.Fatalf("status with a missing active profile: exit %d\n%s", r.code, r.stderr)
	}
	if r := hermes(t, home, t.TempDir(), "profile", "use", "default"); r.code != 0 {
		t.Fatalf("profile use default: exit %d\n%s", r.code, r.stderr)
	}
	if r := hermes(t, home, t.TempDir(), "status"); r.code != 0 {
		t.Fatalf("status after profile use default: exit %d\n%s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(filepath.Dir(home))
	for _, e := range entries {
		if e.Name() == "evil" {
			t.Fatal("a profile name escaped the home")
		}
	}
}

// Commands the agent runs see the profile's home as HERMES_HOME (a hermes
// they start uses the same profile) and no HERMES_PROFILE to apply again.
func TestProfileHomeReachesCommandsTheAgentRuns(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{call("env", "terminal", `{"command":"echo home=$HERMES_HOME profile=${HERMES_PROFILE:-none}"}`)}},
		llmtest.Reply{Text: "done"})
	home := t.TempDir()
	if r := hermes(t, home, t.TempDir(), "profile", "create", "work"); r.code != 0 {
		t.Fatalf("create: exit %d\n%s", r.code, r.stderr)
	}
	r := hermesEnv(t, []string{"HERMES_PROFILE=work"}, home, t.TempDir(), "-z", "go", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	got := resultsByID(srv.Requests()[1])["env"]
	want := "home=" + filepath.Join(home, "profiles", "work") + " profile=none"
	if !strings.Contains(got, want) {
		t.Fatalf("the command saw %q, want %q", got, want)
	}
}

// What the agent runs in one profile reads no other's keys, settings or
// sessions (the base home's, another profile's) and writes none of them;
// commands and file tools alike.
func TestProfilesDoNotReadEachOthersKeys(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"profile", "create", "work"}, {"profile", "create", "play"}} {
		if r := hermes(t, home, t.TempDir(), args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	secrets := map[string]string{
		home:                                    "sk-base-secret-0000",
		filepath.Join(home, "profiles", "work"): "sk-work-secret-1111",
		filepath.Join(home, "profiles", "play"): "sk-play-secret-2222",
	}
	for dir, key := range secrets {
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("SOME_API_KEY="+key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		profile string
		others  []string
	}{
		{"work", []string{home, filepath.Join(home, "profiles", "play")}},
		{"default", []string{filepath.Join(home, "profiles", "work"), filepath.Join(home, "profiles", "play")}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			var calls []llm.ToolCall
			for i, o := range tc.others {
				calls = append(calls,
					call("cat"+strconv.Itoa(i), "terminal", `{"command":"cat `+o+`/.env; echo x > `+o+`/config.yaml"}`),
					call("read"+strconv.Itoa(i), "read_file", `{"path":"`+o+`/.env"}`))
			}
			srv.Enqueue(llmtest.Reply{ToolCalls: calls}, llmtest.Reply{Text: "done"})
			r := hermes(t, home, t.TempDir(), "-p", tc.profile, "--yolo", "-z", "go", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			results := resultsByID(srv.Requests()[1])
			if len(results) != 2*len(tc.others) {
				t.Fatalf("results %v", results)
			}
			for id, res := range results {
				if strings.Contains(res, "secret") {
					t.Fatalf("%s read another home's key: %q", id, res)
				}
			}
			for _, o := range tc.others {
				mustNotExist(t, filepath.Join(o, "config.yaml"))
			}
		})
	}
}
