package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

func runTool(t *testing.T, tl tool.Tool, args string) (map[string]any, tool.Result) {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c1", Name: "memory", Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("result is not JSON: %q", res.Content)
	}
	return out, res
}

func TestMemoryToolSpec(t *testing.T) {
	spec := NewTool(openTest(t)).Spec()
	if spec.Name != "memory" || spec.Toolset != "memory" || spec.Class != tool.Sequential {
		t.Fatalf("spec %+v", spec)
	}
	var schema map[string]any
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if err := tool.NewRegistry().Register(NewTool(openTest(t))); err != nil {
		t.Fatalf("registry refused the tool: %v", err)
	}
}

func TestMemoryToolEditsAndReportsJSON(t *testing.T) {
	s := openTest(t)
	tl := NewTool(s)
	tests := []struct {
		name    string
		args    string
		success bool
		check   func(t *testing.T, out map[string]any)
	}{
		{"add", `{"action":"add","target":"user","content":"Prefers <short> answers & bullet lists"}`, true, func(t *testing.T, out map[string]any) {
			if out["message"] != "Entry added." || out["target"] != "user" || out["entry_count"] != 1.0 ||
				!strings.HasSuffix(out["usage"].(string), "/1375 chars") || out["done"] != true {
				t.Fatalf("%v", out)
			}
		}},
		{"replace", `{"action":"replace","target":"user","old_text":"short","content":"Prefers detailed answers"}`, true, nil},
		{"batch", `{"target":"memory","operations":[{"action":"add","content":"a"},{"action":"add","content":"b"}]}`, true, func(t *testing.T, out map[string]any) {
			if out["message"] != "Applied 2 operation(s)." {
				t.Fatalf("%v", out)
			}
		}},
		{"remove without match", `{"action":"remove","target":"memory","old_text":"zzz"}`, false, func(t *testing.T, out map[string]any) {
			if out["usage"] != "5/2200" || len(out["current_entries"].([]any)) != 2 {
				t.Fatalf("%v", out)
			}
		}},
		{"no action", `{"target":"memory"}`, false, nil},
		{"bad target", `{"action":"add","target":"notes","content":"x"}`, false, nil},
		{"bad JSON", `{"action":`, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, res := runTool(t, tl, tt.args)
			if out["success"] != tt.success || res.IsError == tt.success {
				t.Fatalf("success=%v IsError=%v: %s", out["success"], res.IsError, res.Content)
			}
			if !tt.success && out["error"] == "" {
				t.Fatalf("failure without an error text: %s", res.Content)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
	if got := readString(t, s.Path(TargetUser)); got != "Prefers detailed answers\n" {
		t.Fatalf("USER.md = %q", got)
	}
	runTool(t, tl, `{"action":"add","target":"user","content":"x < y"}`)
	_, res := runTool(t, tl, `{"action":"remove","target":"user","old_text":"nothing"}`)
	if !strings.Contains(res.Content, `"x < y"`) {
		t.Fatalf("HTML-escaped output: %s", res.Content)
	}
}
