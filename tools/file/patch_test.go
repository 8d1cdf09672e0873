package file

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPatchReplace(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		args     map[string]any
		isErr    bool
		want     string // file content afterwards
		contains string // in the result
	}{
		{"exact unique match", "a\nfoo()\nb\n", map[string]any{"old_string": "foo()", "new_string": "bar()"}, false, "a\nbar()\nb\n", "+bar()"},
		{"ambiguous says how many", "x = 1\nx = 1\nx = 1\n", map[string]any{"old_string": "x = 1", "new_string": "x = 2"}, true, "x = 1\nx = 1\nx = 1\n", "matches 3 places in"},
		{"ambiguous names the lines", "k\nx\nk\n", map[string]any{"old_string": "k", "new_string": "j"}, true, "k\nx\nk\n", "(lines 1, 3)"},
		{"replace_all", "x = 1\nx = 1\n", map[string]any{"old_string": "x = 1", "new_string": "x = 2", "replace_all": true}, false, "x = 2\nx = 2\n", "replaced 2 occurrence(s)"},
		{"absent target", "hello\n", map[string]any{"old_string": "goodbye", "new_string": "x"}, true, "hello\n", "was not found"},
		{"whitespace tolerant", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", map[string]any{"old_string": "if x {\n    return\n}", "new_string": "if y {\n\t\treturn\n\t}"}, false, "func f() {\n\tif y {\n\t\treturn\n\t}\n}\n", "ignoring whitespace"},
		{"backslashes kept literally", "re := `\\d+\\.\\d+`\npath := \"C:\\\\tmp\"\n", map[string]any{"old_string": "`\\d+\\.\\d+`", "new_string": "`\\w+\\\\n`"}, false, "re := `\\w+\\\\n`\npath := \"C:\\\\tmp\"\n", "Edited"},
		{"identical strings refused", "a\n", map[string]any{"old_string": "a", "new_string": "a"}, true, "a\n", "identical"},
		{"empty old_string refused", "a\n", map[string]any{"old_string": "", "new_string": "b"}, true, "a\n", "write_file"},
		{"dollar signs not expanded", "cost\n", map[string]any{"old_string": "cost", "new_string": "$1 ${x}"}, false, "$1 ${x}\n", "Edited"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft, dir := newTools(t)
			writeFiles(t, dir, map[string]string{"f.txt": tc.file})
			tc.args["path"] = "f.txt"
			res := call(t, ft.Patch(), tc.args)
			if res.IsError != tc.isErr {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.isErr, res.Content)
			}
			if !strings.Contains(res.Content, tc.contains) {
				t.Errorf("result lacks %q:\n%s", tc.contains, res.Content)
			}
			if got := readFile(t, filepath.Join(dir, "f.txt")); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPatchReplaceShowsDiff(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"m.go": "package m\n\nfunc A() {}\n\nfunc B() {}\n"})
	res := call(t, ft.Patch(), map[string]any{"path": "m.go", "old_string": "func B() {}", "new_string": "func B() int { return 1 }"})
	want := "--- a/m.go\n+++ b/m.go\n@@ -2,4 +2,4 @@\n \n func A() {}\n \n-func B() {}\n+func B() int { return 1 }\n"
	if !strings.Contains(res.Content, want) {
		t.Errorf("diff:\n%s\nwant:\n%s", res.Content, want)
	}
}

const v4aExample = `*** Begin Patch
*** Update File: src/app.py
@@ def main():
     setup()
-    run()
+    run(verbose=True)
*** Add File: src/new.py
+print("hello")
+print("bye")
*** Delete File: src/old.py
*** End Patch
`

func TestPatchV4AMultiFile(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{
		"src/app.py": "import os\n\ndef main():\n    setup()\n    run()\n\nmain()\n",
		"src/old.py": "gone\n",
	})
	res := call(t, ft.Patch(), map[string]any{"mode": "patch", "patch": v4aExample})
	if res.IsError {
		t.Fatalf("patch failed: %s", res.Content)
	}
	if got := readFile(t, filepath.Join(dir, "src/app.py")); got != "import os\n\ndef main():\n    setup()\n    run(verbose=True)\n\nmain()\n" {
		t.Errorf("app.py = %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "src/new.py")); got != "print(\"hello\")\nprint(\"bye\")\n" {
		t.Errorf("new.py = %q", got)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "src/old.py")); err != nil || fileExists(filepath.Join(dir, "src/old.py")) {
		t.Error("old.py not deleted")
	}
	for _, s := range []string{"updated src/app.py", "added src/new.py (2 lines)", "deleted src/old.py", "+    run(verbose=True)"} {
		if !strings.Contains(res.Content, s) {
			t.Errorf("result lacks %q:\n%s", s, res.Content)
		}
	}
}

func TestPatchV4AHunksMoveAndAnchors(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"a.go": "func one() {\n\treturn\n}\n\nfunc two() {\n\treturn\n}\n"})
	patch := "*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n@@ func two() {\n-\treturn\n+\treturn 2\n*** End Patch"
	res := call(t, ft.Patch(), map[string]any{"mode": "patch", "patch": patch})
	if res.IsError {
		t.Fatalf("%s", res.Content)
	}
	if fileExists(filepath.Join(dir, "a.go")) {
		t.Error("a.go still there after a move")
	}
	if got := readFile(t, filepath.Join(dir, "b.go")); got != "func one() {\n\treturn\n}\n\nfunc two() {\n\treturn 2\n}\n" {
		t.Errorf("the anchor did not pick the second return: %q", got)
	}
}

func TestPatchV4AIsAllOrNothing(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"one.txt": "alpha\n", "two.txt": "beta\n"})
	patch := "*** Begin Patch\n*** Update File: one.txt\n-alpha\n+ALPHA\n*** Update File: two.txt\n-gamma\n+GAMMA\n*** Add File: three.txt\n+new\n*** End Patch"
	res := call(t, ft.Patch(), map[string]any{"mode": "patch", "patch": patch})
	if !res.IsError || !strings.Contains(res.Content, "two.txt") || !strings.Contains(res.Content, "gamma") || !strings.Contains(res.Content, "nothing was written") {
		t.Fatalf("want a failure naming two.txt: %s", res.Content)
	}
	if got := readFile(t, filepath.Join(dir, "one.txt")); got != "alpha\n" {
		t.Errorf("one.txt changed by a failed patch: %q", got)
	}
	if fileExists(filepath.Join(dir, "three.txt")) {
		t.Error("three.txt created by a failed patch")
	}
}

func TestPatchV4ARollsBackWhenAWriteFails(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"one.txt": "alpha\n", "blocker": "a regular file"})
	// blocker/x.txt cannot be created: its parent is a file. The check
	// phase cannot see that; the write phase fails and must undo one.txt.
	patch := "*** Begin Patch\n*** Update File: one.txt\n-alpha\n+ALPHA\n*** Add File: blocker/x.txt\n+x\n*** End Patch"
	res := call(t, ft.Patch(), map[string]any{"mode": "patch", "patch": patch})
	if !res.IsError || !strings.Contains(res.Content, "restored") {
		t.Fatalf("want a failure with restore: %s", res.Content)
	}
	if got := readFile(t, filepath.Join(dir, "one.txt")); got != "alpha\n" {
		t.Errorf("one.txt not restored: %q", got)
	}
}

func TestParsePatchErrors(t *testing.T) {
	for name, p := range map[string]string{
		"no begin":          "*** Update File: a\n-x\n+y\n*** End Patch",
		"no end":            "*** Begin Patch\n*** Update File: a\n-x\n+y\n",
		"bad hunk line":     "*** Begin Patch\n*** Update File: a\n?x\n*** End Patch",
		"add without plus":  "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
		"empty":             "*** Begin Patch\n*** End Patch",
		"same file twice":   "*** Begin Patch\n*** Delete File: a\n*** Delete File: a\n*** End Patch",
		"update no changes": "*** Begin Patch\n*** Update File: a\n*** End Patch",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parsePatch(p); err == nil {
				t.Error("parsed without error")
			}
		})
	}
}

func TestApplyHunksAmbiguousContext(t *testing.T) {
	_, err := applyHunks("x\ny\nx\ny\n", []hunk{{old: []string{"x"}, new: []string{"z"}}})
	if err == nil || !strings.Contains(err.Error(), "matches 2 places") {
		t.Errorf("err = %v", err)
	}
	got, err := applyHunks("a\n  b  \nc\n", []hunk{{old: []string{"a", "b", "c"}, new: []string{"a", "B", "c"}}})
	if err != nil || got != "a\nB\nc\n" {
		t.Errorf("tolerant hunk: %q %v", got, err)
	}
	got, err = applyHunks("a\n", []hunk{{new: []string{"b"}}})
	if err != nil || got != "a\nb\n" {
		t.Errorf("pure addition: %q %v", got, err)
	}
}
