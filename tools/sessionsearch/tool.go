package sessionsearch

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

//go:embed session_search.md
var description string

// Limits of what one call returns.
const (
	defaultLimit    = 3
	maxLimit        = 10
	matchesPerHit   = 3
	readHead        = 20
	readTail        = 10
	messageCapChars = 500
)

type searchTool struct{ s *session.Store }

// New returns the session_search tool. It is offered only while the
// store holds a session other than current's (nil current: any session):
// on a first run there is nothing to search. A nil store gives a tool
// that is never offered and reports that no history is available.
func New(s *session.Store, current func() string) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "session_search",
		Description: strings.TrimSpace(description),
		Toolset:     "session_search",
		Class:       tool.Parallel,
		Check:       (&othersCheck{s: s, current: current}).check,
	}, searchTool{s}.run, tool.InvalidArgs(func(err error) tool.Result {
		return failure("invalid arguments: " + err.Error())
	})))
}

// errNoHistory is why the tool is not offered.
var errNoHistory = errors.New("session_search: no other session is stored")

// othersCheck is the tool's availability: s holds a session other than
// current's. Once one is seen the answer stays yes, so a long
// conversation asks the store once, not before every model call.
type othersCheck struct {
	s       *session.Store
	current func() string
	seen    atomic.Bool
}

func (c *othersCheck) check() error {
	if c.seen.Load() {
		return nil
	}
	if c.s == nil {
		return errNoHistory
	}
	cur := ""
	if c.current != nil {
		cur = c.current()
	}
	ok, err := c.s.HasOther(context.Background(), cur)
	if err != nil {
		return fmt.Errorf("session_search: %w", err)
	}
	if !ok {
		return errNoHistory
	}
	c.seen.Store(true)
	return nil
}

type args struct {
	Query      string `json:"query,omitempty"`
	Limit      int    `json:"limit,omitempty" minimum:"1" maximum:"10" default:"3"`
	RoleFilter string `json:"role_filter,omitempty" jsonschema:"Comma-separated: user, assistant, tool."`
	SessionID  string `json:"session_id,omitempty"`
}

func (t searchTool) run(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
	if t.s == nil {
		return failure("Session history is not available: no session database is open."), nil
	}
	if a.Limit <= 0 {
		a.Limit = defaultLimit
	}
	a.Limit = min(a.Limit, maxLimit)
	var (
		out any
		err error
	)
	switch {
	case strings.TrimSpace(a.Query) != "":
		out, err = t.discover(ctx, call.SessionID, a)
	case a.SessionID != "":
		out, err = t.read(ctx, a.SessionID)
	default:
		out, err = t.browse(ctx, call.SessionID, a.Limit)
	}
	switch {
	case errors.Is(err, session.ErrNotFound):
		return failure(fmt.Sprintf("No session %q exists.", a.SessionID)), nil
	case errors.Is(err, session.ErrEmptyQuery):
		return failure(fmt.Sprintf("The query %q has no words to search for.", a.Query)), nil
	}
	if err != nil {
		return tool.Result{}, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return tool.Result{}, fmt.Errorf("session_search: encode result: %w", err)
	}
	return tool.Text(string(b)), nil
}

type match struct {
	Role    llm.Role `json:"role"`
	Seq     int      `json:"seq"`
	When    string   `json:"when"`
	Snippet string   `json:"snippet"`
}

type hit struct {
	SessionID string  `json:"session_id"`
	Title     string  `json:"title,omitempty"`
	Source    string  `json:"source"`
	When      string  `json:"when"`
	Model     string  `json:"model,omitempty"`
	Messages  int     `json:"messages"`
	Matches   []match `json:"matches"`
}

func (t searchTool) discover(ctx context.Context, current string, a args) (any, error) {
	var roles []llm.Role
	for _, r := range strings.Split(a.RoleFilter, ",") {
		if r = strings.TrimSpace(strings.ToLower(r)); r != "" {
			roles = append(roles, llm.Role(r))
		}
	}
	// Fetch more messages than sessions wanted: several may come from one.
	res, err := t.s.Search(ctx, a.Query, session.SearchOptions{
		Limit: a.Limit * 10, ExcludeSession: current, Roles: roles,
	})
	if err != nil {
		return nil, err
	}
	var hits []*hit
	bySession := map[string]*hit{}
	for _, r := range res {
		h := bySession[r.SessionID]
		if h == nil {
			if len(hits) == a.Limit {
				continue
			}
			x, err := t.s.Get(ctx, r.SessionID)
			if err != nil {
				return nil, err
			}
			h = &hit{SessionID: x.ID, Title: x.Title, Source: x.Source, When: when(x.StartedAt), Model: x.Model, Messages: x.MessageCount}
			bySession[r.SessionID] = h
			hits = append(hits, h)
		}
		if len(h.Matches) < matchesPerHit {
			h.Matches = append(h.Matches, match{Role: r.Role, Seq: r.Seq, When: when(r.Time), Snippet: r.Snippet})
		}
	}
	if hits == nil {
		hits = []*hit{}
	}
	return map[string]any{"success": true, "query": a.Query, "results": hits, "count": len(hits)}, nil
}

type line struct {
	Seq     int      `json:"seq"`
	Role    llm.Role `json:"role"`
	Content string   `json:"content"`
	Tools   []string `json:"tool_calls,omitempty"`
}

func (t searchTool) read(ctx context.Context, id string) (any, error) {
	x, err := t.s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, err := t.s.Messages(ctx, id)
	if err != nil {
		return nil, err
	}
	lines := make([]line, 0, readHead+readTail)
	omitted := 0
	for i, m := range msgs {
		if i >= readHead && i < len(msgs)-readTail {
			omitted++
			continue
		}
		l := line{Seq: i + 1, Role: m.Role, Content: capText(m.Content, messageCapChars)}
		for _, c := range m.ToolCalls {
			l.Tools = append(l.Tools, c.Name)
		}
		lines = append(lines, l)
	}
	return map[string]any{
		"success": true, "session_id": x.ID, "title": x.Title, "source": x.Source,
		"when": when(x.StartedAt), "messages": lines, "omitted_messages": omitted,
	}, nil
}

type recent struct {
	SessionID string `json:"session_id"`
	Title     string `json:"title,omitempty"`
	Source    string `json:"source"`
	When      string `json:"when"`
	Messages  int    `json:"messages"`
	Preview   string `json:"preview,omitempty"`
}

func (t searchTool) browse(ctx context.Context, current string, limit int) (any, error) {
	skip := map[string]bool{current: true}
	if current != "" {
		if lin, err := t.s.Lineage(ctx, current); err == nil {
			for _, x := range lin {
				skip[x.ID] = true
			}
		}
	}
	list, err := t.s.List(ctx, session.ListOptions{Limit: limit + len(skip), ExcludeSources: []string{"subagent"}})
	if err != nil {
		return nil, err
	}
	out := []recent{}
	for _, x := range list {
		if skip[x.ID] || len(out) == limit {
			continue
		}
		out = append(out, recent{SessionID: x.ID, Title: x.Title, Source: x.Source, When: when(x.LastActive),
			Messages: x.MessageCount, Preview: capText(x.Preview, 120)})
	}
	return map[string]any{"success": true, "sessions": out, "count": len(out)}, nil
}

func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02 15:04")
}

func capText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func failure(msg string) tool.Result {
	b, _ := json.Marshal(map[string]any{"success": false, "error": msg})
	return tool.Error(string(b))
}
