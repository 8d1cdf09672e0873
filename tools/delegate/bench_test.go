package delegate

import (
	"context"
	"github.com/hermes-go/hermes/agent"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// instant answers every call at once: the benchmarks measure what
// delegation itself costs (child setup, prompt, report), not a model.
var instant = llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return &llm.Response{Message: llm.Assistant("done"), FinishReason: llm.FinishStop}, nil
})

func benchmarkDelegate(b *testing.B, args string) {
	reg := tool.NewRegistry(&shell{}, named("read_file", "file", ""), named("memory", "memory", ""))
	d := New(Options{Parent: agent.Config{Client: instant, Model: "m", Tools: reg, Store: &store{}}})
	c := call(args)
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := d.Run(context.Background(), c); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkDelegateOneTask(b *testing.B) { benchmarkDelegate(b, `{"goal":"one"}`) }

func BenchmarkDelegateBatchOfThree(b *testing.B) {
	benchmarkDelegate(b, `{"tasks":[{"goal":"one"},{"goal":"two"},{"goal":"three"}]}`)
}
