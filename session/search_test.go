package session

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestSearchRanksBestMatchFirstWithSnippetAndTitle(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{Title: "Kubernetes upgrade"})
	b := mustCreate(t, s, Session{})
	mustAppend(t, s, a.ID,
		llm.User("the kubernetes cluster upgrade failed; kubernetes said the kubernetes node was not ready"),
		llm.Assistant("let me look at the logs"))
	mustAppend(t, s, b.ID,
		llm.User("a long message about many things: cooking, travel, music, gardening, and once kubernetes, then more words about nothing in particular at all"))

	res, err := s.Search(ctx, "kubernetes", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("got %d results, want 2: %+v", len(res), res)
	}
	top := res[0]
	if top.SessionID != a.ID || top.Title != "Kubernetes upgrade" || top.Role != llm.RoleUser || top.Seq != 1 || top.Source != "cli" {
		t.Fatalf("top result %+v", top)
	}
	if !strings.Contains(top.Snippet, ">>>kubernetes<<<") {
		t.Fatalf("snippet %q has no marked match", top.Snippet)
	}
	if !(res[0].Rank <= res[1].Rank) {
		t.Fatalf("ranks not ascending: %v then %v", res[0].Rank, res[1].Rank)
	}
	if res[0].Time.IsZero() || res[0].MessageID == 0 {
		t.Fatalf("result lacks time or message id: %+v", res[0])
	}
}

func TestSearchExcludesTheCurrentSessionAndItsLineage(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	root := mustCreate(t, s, Session{})
	cont := mustCreate(t, s, Session{ParentID: root.ID}) // continuation after compression
	sub := mustCreate(t, s, Session{ParentID: cont.ID, Source: "subagent"})
	other := mustCreate(t, s, Session{})
	for _, id := range []string{root.ID, cont.ID, sub.ID, other.ID} {
		mustAppend(t, s, id, llm.User("walrus "+id))
	}
	res, err := s.Search(ctx, "walrus", SearchOptions{ExcludeSession: cont.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].SessionID != other.ID {
		t.Fatalf("got %+v, want only %s", res, other.ID)
	}
	if res, _ := s.Search(ctx, "walrus", SearchOptions{}); len(res) != 4 {
		t.Fatalf("without exclusion: %d results, want 4", len(res))
	}
}

func TestSearchAcceptsAnyTextWithoutSyntaxErrors(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	mustAppend(t, s, x.ID, llm.User(`fix the foo-bar build with c++ and "quotes" near NEAR content:thing`))
	queries := []string{
		`foo-bar`, `c++`, `"quotes`, `NEAR(foo bar)`, `content:thing`, `foo AND`, `OR foo`,
		`foo NOT`, `^fix`, `fix*`, `(((fix`, `fix)`, `{fix}`, `'fix'`, `fix -build`,
		`"unterminated phrase`, `a"b"c`, `foo * bar`, `NOT fix`, `fix:`, `émoji 🎉 fix`,
	}
	for _, q := range queries {
		if _, err := s.Search(ctx, q, SearchOptions{}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	for _, q := range []string{"", "   ", "*", `"" ()`, "AND", "AND OR NOT"} {
		_, err := s.Search(ctx, q, SearchOptions{})
		if err == nil || !strings.Contains(err.Error(), "no words") {
			t.Errorf("Search(%q) err = %v, want a no-words error", q, err)
		}
	}
	res, _ := s.Search(ctx, "foo-bar", SearchOptions{})
	if len(res) != 1 {
		t.Fatalf("hyphenated term found %d results, want 1", len(res))
	}
	res, _ = s.Search(ctx, "bui*", SearchOptions{})
	if len(res) != 1 {
		t.Fatalf("prefix search found %d results, want 1", len(res))
	}
}

func TestSearchFallsBackToAnyWordWhenAllWordsFindNothing(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	mustAppend(t, s, x.ID, llm.User("the postgres migration"), llm.User("a postgres backup"), llm.User("unrelated"))
	res, err := s.Search(ctx, "postgres migration", SearchOptions{})
	if err != nil || len(res) != 1 {
		t.Fatalf("all words: %+v, %v", res, err)
	}
	res, err = s.Search(ctx, "postgres replication", SearchOptions{})
	if err != nil || len(res) != 2 {
		t.Fatalf("fallback to any word: %d results, %v; want 2", len(res), err)
	}
	res, err = s.Search(ctx, "postgres AND replication", SearchOptions{})
	if err != nil || len(res) != 0 {
		t.Fatalf("explicit AND must not fall back: %d results, %v", len(res), err)
	}
}

func TestSearchFiltersByRoleSourceAndLimit(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	cli := mustCreate(t, s, Session{Source: "cli"})
	api := mustCreate(t, s, Session{Source: "api"})
	mustAppend(t, s, cli.ID, llm.User("llama one"), llm.Assistant("llama two"), llm.ToolResult("c", "t", "llama three"))
	mustAppend(t, s, api.ID, llm.User("llama four"))
	res, _ := s.Search(ctx, "llama", SearchOptions{Roles: []llm.Role{llm.RoleAssistant, llm.RoleTool}})
	if len(res) != 2 {
		t.Fatalf("role filter: %d results, want 2", len(res))
	}
	for _, r := range res {
		if r.Role == llm.RoleUser {
			t.Fatalf("user message returned: %+v", r)
		}
	}
	if res, _ := s.Search(ctx, "llama", SearchOptions{Source: "api"}); len(res) != 1 || res[0].SessionID != api.ID {
		t.Fatalf("source filter: %+v", res)
	}
	if res, _ := s.Search(ctx, "llama", SearchOptions{Limit: 3}); len(res) != 3 {
		t.Fatalf("limit: %d results, want 3", len(res))
	}
}

func TestFTSQueryQuotesEverythingButOperators(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`hello world`, `"hello" "world"`},
		{`foo-bar`, `"foo-bar"`},
		{`say "hello world"`, `"say" "hello world"`},
		{`dock*`, `"dock" *`},
		{`x OR y`, `"x" OR "y"`},
		{`OR x AND`, `"x"`},
		{`x "y""z"`, `"x" "y" "z"`},
		{`how do I fix the nginx error`, `"fix" "nginx" "error"`},
		{`the "the" the*`, `"the" "the" *`},
		{`the`, `"the"`},
		{`the AND nginx`, `"the" AND "nginx"`},
		{`content:x`, `"content:x"`},
		{`he said "x""`, `"he" "said" "x"`},
		{`O"Brien`, `"O""Brien"`},
	}
	for _, tt := range tests {
		got, _, _ := ftsQuery(tt.in, false)
		if got != tt.want {
			t.Errorf("ftsQuery(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got, _, _ := ftsQuery("x y", true); got != `"x" OR "y"` {
		t.Errorf("or mode: %s", got)
	}
}

func TestSearchRanksOnlyTheNewestCandidates(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	// The oldest message is the best match, but it is not among the newest 5.
	mustAppend(t, s, x.ID, llm.User("heron heron heron heron"))
	for i := range 10 {
		mustAppend(t, s, x.ID, llm.User(strings.Repeat("filler ", i+1)+"heron"))
	}
	res, _ := s.Search(ctx, "heron", SearchOptions{Candidates: 5, Limit: 10})
	if len(res) != 5 {
		t.Fatalf("%d results, want 5", len(res))
	}
	for _, r := range res {
		if r.Seq < 7 {
			t.Fatalf("message %d is older than the 5 newest candidates", r.Seq)
		}
	}
	if res, _ := s.Search(ctx, "heron", SearchOptions{Limit: 1}); res[0].Seq != 1 {
		t.Fatalf("with every match ranked the best is message %d, want 1", res[0].Seq)
	}
}
