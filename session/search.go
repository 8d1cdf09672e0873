package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// SearchOptions narrow Search.
type SearchOptions struct {
	// Limit caps the hits; 0 means 10.
	Limit int
	// ExcludeSession drops this session and its whole lineage (ancestors,
	// continuations, subagents): the conversation the caller is in.
	ExcludeSession string
	// Roles keeps only messages with these roles.
	Roles []llm.Role
	// Source keeps only sessions from this source.
	Source string
	// Candidates bounds how many matching messages are ranked: the newest
	// N matches (0 means DefaultCandidates). Ranking every match of a
	// common word over a million messages costs seconds; ranking the most
	// recent ones keeps a search in tens of milliseconds and favours
	// recent conversations, which is what recall usually wants. A word
	// rarer than N matches is ranked over all of its matches.
	Candidates int
}

// DefaultCandidates is the default of SearchOptions.Candidates.
const DefaultCandidates = 1000

// SearchResult is one matching message.
type SearchResult struct {
	MessageID int64     `json:"message_id"`
	SessionID string    `json:"session_id"`
	Title     string    `json:"title,omitempty"`
	Source    string    `json:"source"`
	Seq       int       `json:"seq"`
	Role      llm.Role  `json:"role"`
	Time      time.Time `json:"timestamp"`
	// Snippet is the matching part of the message with the matched words
	// marked >>>like this<<<.
	Snippet string `json:"snippet"`
	// Rank is the bm25 score: lower is a better match.
	Rank float64 `json:"rank"`
}

// Search finds messages matching query, best match first (bm25 over the
// newest SearchOptions.Candidates matches). Any text is accepted: FTS5
// syntax in it is neutralised, and common English words are dropped when
// the query has other words. When every word is required (the default)
// and nothing matches, the search is retried with any word matching.
func (s *Store) Search(ctx context.Context, query string, o SearchOptions) ([]SearchResult, error) {
	q, n, explicit := ftsQuery(query, false)
	if q == "" {
		return nil, fmt.Errorf("session: search %q: %w", query, ErrEmptyQuery)
	}
	res, err := s.search(ctx, q, o)
	if err != nil || len(res) > 0 || n < 2 || explicit {
		return res, err
	}
	q, _, _ = ftsQuery(query, true)
	return s.search(ctx, q, o)
}

func (s *Store) search(ctx context.Context, match string, o SearchOptions) ([]SearchResult, error) {
	limit := o.Limit
	if limit <= 0 {
		limit = 10
	}
	var (
		filters []string
		args    = []any{match}
	)
	if o.ExcludeSession != "" {
		ids, err := s.family(ctx, o.ExcludeSession)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(ids)
		filters = append(filters, "m.session_id NOT IN (SELECT value FROM json_each(?))")
		args = append(args, string(b))
	}
	if len(o.Roles) > 0 {
		filters = append(filters, "m.role IN ("+placeholders(len(o.Roles))+")")
		for _, r := range o.Roles {
			args = append(args, string(r))
		}
	}
	if o.Source != "" {
		filters = append(filters, "m.session_id IN (SELECT id FROM sessions WHERE source = ?)")
		args = append(args, o.Source)
	}
	where := ""
	if len(filters) > 0 {
		where = " AND " + strings.Join(filters, " AND ")
	}
	candidates := o.Candidates
	if candidates <= 0 {
		candidates = DefaultCandidates
	}
	args = append(args, candidates, limit, match)
	// Three steps: take the newest matches (FTS5 walks its doclists in
	// rowid order and stops at the LIMIT), rank them with bm25, then build
	// snippets for the winners only (snippet() costs far more than bm25()).
	rows, err := s.r.QueryContext(ctx, `WITH cand AS (
			SELECT f.rowid AS id, bm25(messages_fts) AS rank
			FROM messages_fts f JOIN messages m ON m.id = f.rowid
			WHERE messages_fts MATCH ?`+where+`
			ORDER BY f.rowid DESC LIMIT ?
		), hits AS (
			SELECT id, rank FROM cand ORDER BY rank, id DESC LIMIT ?
		)
		SELECT m.id, m.session_id, COALESCE(s.title, ''), s.source, m.seq, m.role, m.timestamp,
			snippet(messages_fts, 0, '>>>', '<<<', '...', 24), hits.rank
		FROM hits
		JOIN messages_fts ON messages_fts.rowid = hits.id
		JOIN messages m ON m.id = hits.id
		JOIN sessions s ON s.id = m.session_id
		WHERE messages_fts MATCH ?
		ORDER BY hits.rank, m.id`, args...)
	if err != nil {
		return nil, wrap("search", fmt.Sprintf("%q", match), err)
	}
	defer rows.Close()
	var out []SearchResult
	for rows.Next() {
		var (
			r    SearchResult
			role string
			ts   int64
		)
		if err := rows.Scan(&r.MessageID, &r.SessionID, &r.Title, &r.Source, &r.Seq, &role, &ts, &r.Snippet, &r.Rank); err != nil {
			return nil, wrap("search", match, err)
		}
		r.Role, r.Time = llm.Role(role), time.Unix(0, ts)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("search", match, err)
	}
	return out, nil
}

// family returns every session in id's lineage tree: its root and all of
// the root's descendants. Unknown ids give just themselves.
func (s *Store) family(ctx context.Context, id string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `WITH RECURSIVE
		up(id, parent, depth) AS (
			SELECT id, parent_session_id, 0 FROM sessions WHERE id = ?1
			UNION ALL
			SELECT s.id, s.parent_session_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.parent
			WHERE up.depth < 10000
		),
		root(id) AS (SELECT id FROM up WHERE parent IS NULL OR parent NOT IN (SELECT id FROM sessions)),
		down(id, depth) AS (
			SELECT id, 0 FROM root
			UNION
			SELECT s.id, down.depth + 1 FROM sessions s JOIN down ON s.parent_session_id = down.id
			WHERE down.depth < 10000
		)
		SELECT id FROM down UNION SELECT ?1`, id)
	if err != nil {
		return nil, wrap("lineage", id, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var x string
		if err := rows.Scan(&x); err != nil {
			return nil, wrap("lineage", id, err)
		}
		ids = append(ids, x)
	}
	return ids, wrap("lineage", id, rows.Err())
}
