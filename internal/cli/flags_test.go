package cli

import (
	"slices"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// A flag that cannot be honoured is a usage error (status 2) naming it,
// before any model call; nothing reaches stdout.
func TestBadFlagsExit2BeforeAnyModelCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"empty -z", "", []string{"-z", ""}, []string{`-z needs a prompt`}},
		{"blank -z", "", []string{"-z", "  \t"}, []string{`-z needs a prompt`}},
		{"-z - on empty input", "\n", []string{"-z", "-"}, []string{"-z -: standard input held no prompt"}},
		{"empty chat -q", "", []string{"chat", "-q", ""}, []string{`-q needs a prompt`}},
		{"--oneshot without -q", "", []string{"chat", "--oneshot"}, []string{"--oneshot needs a query"}},
		{"negative --max-turns", "", []string{"-z", "hi", "--max-turns", "-1"}, []string{"--max-turns", "-1", "at least 1"}},
		{"unknown --sandbox mode", "", []string{"-z", "hi", "--sandbox", "wide-open"}, []string{"--sandbox", "wide-open"}},
		{"unknown toolset", "", []string{"-z", "hi", "--toolsets", "terminal,nosuch"}, []string{"toolsets", `"nosuch"`}},
		{"unknown flag", "", []string{"-z", "hi", "--no-such-flag"}, []string{"unknown flag: --no-such-flag"}},
		{"stray argument", "", []string{"hello"}, []string{`unknown command "hello"`}},
		{"missing --image", "", []string{"-z", "hi", "--image", "/no/such/shot.png"}, []string{"--image /no/such/shot.png"}},
		{"unknown --resume", "", []string{"-z", "hi", "--resume", "no-such-session"}, []string{`resume "no-such-session"`}},
		{"unknown --skills", "", []string{"-z", "hi", "-s", "no-such-skill"}, []string{"no-such-skill"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.AllowUnexpected()
			r := hermes(t, t.TempDir(), tc.stdin, nil, append(tc.args, endpoint(srv)...)...)
			if r.code != exitUsage || r.stdout != "" || !contains(r.stderr, tc.want...) {
				t.Fatalf("exit %d stdout %q stderr %q, want 2 and %q", r.code, r.stdout, r.stderr, tc.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d model calls were made", n)
			}
		})
	}
}

// Flags win over config.yaml: the model, the toolsets and the budget
// given on the command line are what the request carries.
func TestFlagsWinOverConfig(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	home := t.TempDir()
	writeConfig(t, home, "model: config-model\ntoolsets: [terminal, file]\n")
	r := hermes(t, home, "", nil, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "flag-model", "--toolsets", "memory")
	if r.code != exitOK || r.stdout != "ok\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	req := srv.Requests()[0]
	var tools []string
	for _, d := range req.Tools() {
		tools = append(tools, d.Name)
	}
	if req.Model != "flag-model" || !slices.Contains(tools, "memory") || slices.Contains(tools, "terminal") || slices.Contains(tools, "read_file") {
		t.Fatalf("request to %q with tools %v", req.Model, tools)
	}
}

func TestToolsetList(t *testing.T) {
	for in, want := range map[string][]string{
		"":                     nil,
		"  ":                   nil,
		"terminal":             {"terminal"},
		" terminal , memory,,": {"terminal", "memory"},
	} {
		if got := (&runFlags{toolsets: in}).toolsetList(); !slices.Equal(got, want) {
			t.Errorf("toolsets %q: %q, want %q", in, got, want)
		}
	}
}
