package checkpoint

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

func cmdCall(task, name, command string) *tool.Call {
	b, _ := json.Marshal(map[string]string{"command": command})
	return &tool.Call{Name: name, TaskID: task, Args: b}
}

func TestPreHookSnapshotsOncePerTurn(t *testing.T) {
	s, ws := newStore(t, tree{"a.txt": "a"}, Options{})
	var warnings []string
	pre := s.PreHook(func(w string) { warnings = append(warnings, w) })
	ctx := context.Background()
	run := func(c *tool.Call) {
		t.Helper()
		if block, err := pre(ctx, c); block != "" || err != nil {
			t.Fatalf("blocked: %q %v", block, err)
		}
	}
	run(cmdCall("t1", "terminal", "ls -la | grep a && git status"))
	run(&tool.Call{Name: "read_file", TaskID: "t1", Args: json.RawMessage(`{"path":"a.txt"}`)})
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("read-only calls snapshotted: %v", list)
	}
	run(&tool.Call{Name: "write_file", TaskID: "t1", Args: json.RawMessage(`{"path":"a.txt","content":"b"}`)})
	write(t, ws, tree{"a.txt": "b"})
	run(cmdCall("t1", "terminal", "rm a.txt"))
	list, _ := s.List()
	if len(list) != 1 || list[0].Turn != 1 || list[0].Reason != "before write_file" {
		t.Fatalf("after turn 1: %+v", list)
	}
	// The next turn snapshots again, in parallel calls only once.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); pre(ctx, cmdCall("t2", "terminal", "make")) }()
	}
	wg.Wait()
	list, _ = s.List()
	if len(list) != 2 || list[0].Turn != 2 || len(warnings) != 0 {
		t.Fatalf("after turn 2: %+v %v", list, warnings)
	}
}

func TestPreHookWarnsOnceAboutTheSizeCap(t *testing.T) {
	s, _ := newStore(t, tree{"a": "1", "b": "2"}, Options{MaxFiles: 1})
	var warnings []string
	pre := s.PreHook(func(w string) { warnings = append(warnings, w) })
	for _, task := range []string{"t1", "t2"} {
		if block, err := pre(context.Background(), cmdCall(task, "terminal", "touch x")); block != "" || err != nil {
			t.Fatalf("blocked: %q %v", block, err)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "checkpoints.max_files") {
		t.Fatalf("warnings = %q", warnings)
	}
}

func TestReadOnlyCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ls -la":                       true,
		"cat a | grep x | wc -l":       true,
		"rg foo; git log --oneline":    true,
		"git diff HEAD~1":              true,
		"find . -name '*.go'":          true,
		"echo hi":                      true,
		"find . -name x -delete":       false,
		"find . -exec rm {} ;":         false,
		"echo hi > f":                  false,
		"rm a":                         false,
		"git checkout .":               false,
		"git diff --output=patch.diff": false,
		"ls $(rm -rf x)":               false,
		"sed -i s/a/b/ f":              false,
		"ls & rm x":                    false,
		"git":                          false,
	} {
		if got := ReadOnlyCommand(cmd); got != want {
			t.Errorf("ReadOnlyCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
	if ChangesWorkspace("process", json.RawMessage(`{"action":"poll","id":"proc_1"}`)) {
		t.Error("process poll counted as a change")
	}
}
