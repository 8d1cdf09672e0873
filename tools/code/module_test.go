package code

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// Any tool becomes a function: required arguments first, in schema
// order; a name Python cannot take as an argument (a keyword, a dash)
// still reaches the tool through **_extra; a tool name that is no
// identifier is made one.
func TestAnySchemaMakesAFunctionPythonAccepts(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	spec := tool.Spec{Name: "mcp-srv.do-it", Description: `Does it. """Quotes""" and \backslashes\.`,
		Parameters: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"from":{"type":"string"},"dash-ed":{"type":"integer"},"a":{"type":"integer"},"n":{}},"required":["a","from"]}`)}
	f := functionOf(spec)
	if got, want := f.signature(), "mcp_srv_do_it(a: int, z: str = None, n=None, **_extra)"; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	dir := t.TempDir()
	src := moduleSource([]function{f})
	if err := os.WriteFile(filepath.Join(dir, "hermes_tools.py"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	// _call is replaced to show what would be sent.
	check := `import hermes_tools, json
hermes_tools._call = lambda tool, args: (tool, {k: v for k, v in args.items() if v is not None})
print(json.dumps(hermes_tools.mcp_srv_do_it(1, **{"from": "x", "dash-ed": 2})))
print(hermes_tools.mcp_srv_do_it.__doc__)
`
	cmd := exec.Command("python3", "-c", check)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, src)
	}
	want := `["mcp-srv.do-it", {"a": 1, "from": "x", "dash-ed": 2}]` + "\n" + spec.Description + "\n"
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	if !strings.Contains(src, `"mcp_srv_do_it"`) {
		t.Error("__all__ lacks the function")
	}
}
