package openai

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestThinkSplitterAgreesWithSplitThinkAtAnyChunking(t *testing.T) {
	inputs := []string{
		"plain answer",
		"<think>plan it</think>The answer is 4.",
		"<THINKING>upper</THINKING>shown",
		"a < b and c > d",
		"before<reasoning>why</reasoning>after<thought>more</thought>end",
		"<think>never closed",
		"text then <thi",
		"<REASONING_SCRATCHPAD>scratch</REASONING_SCRATCHPAD>out",
	}
	for _, in := range inputs {
		wantVis, wantRsn := llm.SplitThink(in)
		for size := 1; size <= len(in); size++ {
			var sp thinkSplitter
			var vis, rsn strings.Builder
			for i := 0; i < len(in); i += size {
				v, r := sp.feed(in[i:min(i+size, len(in))])
				vis.WriteString(v)
				rsn.WriteString(r)
			}
			v, r := sp.flush()
			vis.WriteString(v)
			rsn.WriteString(r)
			if strings.TrimSpace(vis.String()) != wantVis || strings.TrimSpace(rsn.String()) != strings.ReplaceAll(wantRsn, "\n\n", "") {
				t.Errorf("%q in chunks of %d: visible %q reasoning %q, want %q %q", in, size, vis.String(), rsn.String(), wantVis, wantRsn)
			}
		}
	}
}

func TestReasoningPartsDropRepeats(t *testing.T) {
	var r reasoningParts
	r.add("Step one, two.")
	r.add("  Step one, two. ")
	r.add("one")
	r.add("")
	r.add("Another thought.")
	r.add("Step one, two. And three.")
	if got := r.String(); got != "Step one, two. And three.\n\nAnother thought." {
		t.Errorf("got %q", got)
	}
}

func TestCanonicalArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{ "b": 1, "a": {"d": [1, 2], "c": "x<y>&"} }`, `{"a":{"c":"x<y>&","d":[1,2]},"b":1}`},
		{`{"big": 12345678901234567890, "f": 1.50}`, `{"big":12345678901234567890,"f":1.50}`},
		{``, `{}`},
		{`   `, `{}`},
		{`{"a": 1} trailing`, `{"a": 1} trailing`},
		{`{"a": `, `{"a": `},
		{`"just a string"`, `"just a string"`},
	}
	for _, tt := range tests {
		if got := canonicalArgs(tt.in); got != tt.want {
			t.Errorf("canonicalArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFlavorFromProviderOrHost(t *testing.T) {
	tests := []struct {
		opts                              llm.Options
		name                              string
		official, gateway, echo, openRter bool
	}{
		{llm.Options{}, "openai", true, false, false, false},
		{llm.Options{BaseURL: "https://api.openai.com/v1"}, "openai", true, false, false, false},
		{llm.Options{BaseURL: "https://openrouter.ai/api/v1"}, "openrouter", false, true, false, true},
		{llm.Options{BaseURL: "https://x.openai.azure.com/openai/v1"}, "azure", true, false, false, false},
		{llm.Options{BaseURL: "https://ai-gateway.vercel.sh/v1"}, "ai-gateway.vercel.sh", false, true, false, false},
		{llm.Options{BaseURL: "https://api.deepseek.com/v1"}, "api.deepseek.com", false, false, true, false},
		{llm.Options{BaseURL: "http://localhost:8080/v1", Provider: "custom"}, "custom", false, false, true, false},
		{llm.Options{BaseURL: "https://api.groq.com/openai/v1"}, "api.groq.com", false, false, false, false},
	}
	for _, tt := range tests {
		f := newFlavor(tt.opts)
		if f.name != tt.name || f.official != tt.official || f.gateway != tt.gateway || f.echoReasoning != tt.echo || f.openRouter != tt.openRter {
			t.Errorf("%+v: got %+v", tt.opts, f)
		}
	}
}

func TestArgsMemoIsBoundedAndConsistent(t *testing.T) {
	var m argsMemo
	for i := 0; i < 3000; i++ {
		in := `{ "k": "` + strings.Repeat("x", 2000) + `", "i": ` + strings.Repeat("1", 1+i%5) + ` }`
		if got, want := m.canonical(in), canonicalArgs(in); got != want {
			t.Fatalf("memo %q, direct %q", got, want)
		}
		if m.bytes > argsMemoMaxBytes {
			t.Fatalf("memo holds %d bytes, cap %d", m.bytes, argsMemoMaxBytes)
		}
	}
	if got := m.canonical(`{"b":1, "a":2}`); got != `{"a":2,"b":1}` {
		t.Errorf("got %q", got)
	}
}
