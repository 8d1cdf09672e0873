package shellhook

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// BenchmarkPreHookSpawn is the cost a pre_tool_call hook adds to every
// call it matches: one `sh -c` process with the payload on stdin.
func BenchmarkPreHookSpawn(b *testing.B) {
	hs, err := Pre([]Hook{{Command: "cat >/dev/null"}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if block, _ := hs[0](context.Background(), terminalCall("ls")); block != "" {
			b.Fatal(block)
		}
	}
}

// BenchmarkPreHookNoMatch is the cost of a hook whose matcher skips the tool.
func BenchmarkPreHookNoMatch(b *testing.B) {
	hs, err := Pre([]Hook{{Matcher: "write_file|patch", Command: "exit 2"}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	c := &tool.Call{Name: "terminal"}
	b.ReportAllocs()
	for b.Loop() {
		if block, _ := hs[0](context.Background(), c); block != "" {
			b.Fatal(block)
		}
	}
}
