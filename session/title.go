package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// MaxTitleLen caps a title, in characters.
const MaxTitleLen = 100

// SetTitle sets (or with "" clears) the session's title. Titles are
// unique among sessions: a title another session uses is refused with
// ErrTitleTaken, naming that session.
func (s *Store) SetTitle(ctx context.Context, id, title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) > MaxTitleLen {
		return fmt.Errorf("session: set title %s: the title is longer than %d characters", id, MaxTitleLen)
	}
	err := s.execOne(ctx, "set title", id, `UPDATE sessions SET title = ? WHERE id = ?`, nullable(title), id)
	if err != nil && isConstraint(err) {
		owner, _ := s.titleOwner(ctx, title)
		return fmt.Errorf("session: set title %s: title %q is already used by session %s; choose another: %w", id, title, owner, ErrTitleTaken)
	}
	return err
}

// Rename is SetTitle for a user-chosen name, which may not be empty.
func (s *Store) Rename(ctx context.Context, id, title string) error {
	if strings.TrimSpace(title) == "" {
		return fmt.Errorf("session: rename %s: the new title is empty", id)
	}
	return s.SetTitle(ctx, id, title)
}

func (s *Store) titleOwner(ctx context.Context, title string) (string, bool) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT id FROM sessions WHERE title = ?`, title).Scan(&id)
	return id, err == nil
}

var numbered = lazyre.New(`^(.*) #(\d+)$`)

// baseTitle strips a " #N" lineage suffix.
func baseTitle(title string) string {
	if m := numbered.Get().FindStringSubmatch(title); m != nil {
		return m[1]
	}
	return title
}

// NextTitle returns the title for the next session of a lineage: "Base #2"
// after "Base", "Base #4" when "Base #3" is the highest in use.
func (s *Store) NextTitle(ctx context.Context, title string) (string, error) {
	base := baseTitle(strings.TrimSpace(title))
	if base == "" {
		return "", nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\'`,
		base, likeEscape(base)+" #%")
	if err != nil {
		return "", wrap("next title", title, err)
	}
	defer rows.Close()
	highest := 1
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return "", wrap("next title", title, err)
		}
		if m := numbered.Get().FindStringSubmatch(t); m != nil && m[1] == base {
			if n, err := strconv.Atoi(m[2]); err == nil && n > highest {
				highest = n
			}
		}
	}
	if err := rows.Err(); err != nil {
		return "", wrap("next title", title, err)
	}
	return fmt.Sprintf("%s #%d", base, highest+1), nil
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Resolve finds the session a user means by ref, trying in order:
//   - "latest" (or "last", or empty): Latest(ctx, "");
//   - an exact session id;
//   - a title: the most recently active session titled ref or "ref #N";
//   - a unique id prefix (at least 4 characters).
func (s *Store) Resolve(ctx context.Context, ref string) (Session, error) {
	ref = strings.TrimSpace(ref)
	switch strings.ToLower(ref) {
	case "", "latest", "last":
		return s.Latest(ctx, "")
	}
	if x, err := s.Get(ctx, ref); err == nil || !errors.Is(err, ErrNotFound) {
		return x, err
	}
	base := baseTitle(ref)
	x, err := s.scanOne(ctx, "resolve", ref, `SELECT `+sessionColumns+` FROM sessions
		WHERE title = ? OR (title LIKE ? ESCAPE '\' AND ? = ?)
		ORDER BY last_active DESC, started_at DESC LIMIT 1`,
		ref, likeEscape(base)+" #%", base, ref)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return x, err
	}
	if len(ref) >= 4 {
		rows, err := s.r.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
			WHERE id LIKE ? ESCAPE '\' ORDER BY id LIMIT 2`, likeEscape(ref)+"%")
		if err != nil {
			return Session{}, wrap("resolve", ref, err)
		}
		defer rows.Close()
		var found []Session
		for rows.Next() {
			x, err := scanSession(rows)
			if err != nil {
				return Session{}, wrap("resolve", ref, err)
			}
			found = append(found, x)
		}
		if err := rows.Err(); err != nil {
			return Session{}, wrap("resolve", ref, err)
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 2:
			return Session{}, fmt.Errorf("session: resolve %q: several session ids start with it (%s, %s, ...); give more of the id", ref, found[0].ID, found[1].ID)
		}
	}
	return Session{}, fmt.Errorf("session: resolve %q: no session has this id or title: %w", ref, ErrNotFound)
}

// Latest returns the most recently active session that a user would
// resume: not a subagent's and not tagged "tool". A non-empty cwd keeps
// only sessions that ran in that working directory (--resume latest is
// per workspace).
func (s *Store) Latest(ctx context.Context, cwd string) (Session, error) {
	l, err := s.List(ctx, ListOptions{Limit: 1, Cwd: cwd, ExcludeSources: []string{"subagent", "tool"}})
	if err != nil {
		return Session{}, err
	}
	if len(l) == 0 {
		where := "anywhere"
		if cwd != "" {
			where = "in " + cwd
		}
		return Session{}, fmt.Errorf("session: latest: no session %s: %w", where, ErrNotFound)
	}
	return l[0].Session, nil
}

func (s *Store) scanOne(ctx context.Context, op, ref, query string, args ...any) (Session, error) {
	x, err := scanSession(s.r.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session: %s %q: %w", op, ref, ErrNotFound)
	}
	if err != nil {
		return Session{}, wrap(op, ref, err)
	}
	return x, nil
}
