package llm

import (
	"strings"
	"testing"
)

func roles(ms []Message) string {
	var r []string
	for _, m := range ms {
		s := string(m.Role)
		if m.ToolCallID != "" {
			s += "(" + m.ToolCallID + ")"
		}
		r = append(r, s)
	}
	return strings.Join(r, ",")
}

func asst(ids ...string) Message {
	m := Message{Role: RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "t", Arguments: "{}"})
	}
	return m
}

func TestSanitizeEnforcesAlternation(t *testing.T) {
	cases := []struct {
		name    string
		in      []Message
		want    string
		repairs Repairs
	}{
		{"valid history unchanged",
			[]Message{System("s"), User("q"), asst("a", "b"), ToolResult("a", "t", "1"), ToolResult("b", "t", "2"), Assistant("done")},
			"system,user,assistant,tool(a),tool(b),assistant", Repairs{}},
		{"orphan result dropped",
			[]Message{User("q"), ToolResult("x", "t", "?"), Assistant("a")},
			"user,assistant", Repairs{OrphanResults: 1}},
		{"result after a user message is an orphan",
			[]Message{User("q"), asst("a"), ToolResult("a", "t", "1"), User("q2"), ToolResult("a", "t", "again")},
			"user,assistant,tool(a),user", Repairs{OrphanResults: 1}},
		{"missing result gets a stub right after its batch",
			[]Message{User("q"), asst("a", "b"), ToolResult("b", "t", "2"), User("next")},
			"user,assistant,tool(b),tool(a),user", Repairs{MissingResults: 1}},
		{"missing result at the end",
			[]Message{User("q"), asst("a")},
			"user,assistant,tool(a)", Repairs{MissingResults: 1}},
		{"consecutive users merged",
			[]Message{User("one"), User("two"), Assistant("a")},
			"user,assistant", Repairs{MergedUsers: 1}},
		{"consecutive assistants merged",
			[]Message{User("q"), Assistant("a"), Assistant("b")},
			"user,assistant", Repairs{MergedAssistant: 1}},
		{"unknown role and late system dropped",
			[]Message{User("q"), {Role: "narrator", Content: "x"}, System("late"), Assistant("a")},
			"user,assistant", Repairs{DroppedRoles: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := CloneMessages(c.in)
			out, r := Sanitize(c.in)
			if got := roles(out); got != c.want {
				t.Fatalf("roles %s, want %s", got, c.want)
			}
			if r != c.repairs {
				t.Fatalf("repairs %+v, want %+v", r, c.repairs)
			}
			if roles(c.in) != roles(before) {
				t.Fatal("input modified")
			}
			// Sanitising a sanitised history changes nothing.
			if again, r2 := Sanitize(out); r2.Total() != 0 || roles(again) != roles(out) {
				t.Fatalf("not idempotent: %+v", r2)
			}
		})
	}
	out, _ := Sanitize([]Message{User("one"), User("two")})
	if out[0].Content != "one\n\ntwo" {
		t.Fatalf("merged content %q", out[0].Content)
	}
	out, _ = Sanitize([]Message{User("q"), asst("a")})
	if out[2].Content != MissingResultText {
		t.Fatalf("stub content %q", out[2].Content)
	}
}

func TestSplitThink(t *testing.T) {
	cases := []struct{ in, vis, reas string }{
		{"plain", "plain", ""},
		{"<think>hmm</think>answer", "answer", "hmm"},
		{"<THINKING>a</THINKING> x <reasoning>b</reasoning>y", "x y", "a\n\nb"},
		{"answer <think>unterminated", "answer", "unterminated"},
		{"stray </think> tag", "stray  tag", ""},
	}
	for _, c := range cases {
		v, r := SplitThink(c.in)
		if v != c.vis || r != c.reas {
			t.Errorf("SplitThink(%q) = %q, %q; want %q, %q", c.in, v, r, c.vis, c.reas)
		}
	}
}
