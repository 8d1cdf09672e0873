package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

var _ KV = (*Store)(nil)

// Get returns the value stored under key (adapters' resume state, such as
// Telegram's update offset; the caller namespaces its keys).
func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("gateway store: get %q: %w", key, err)
	}
	return v, true, nil
}

// Set stores value under key, replacing any previous value; it is on
// disk when Set returns.
func (s *Store) Set(ctx context.Context, key, value string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("gateway store: set %q: %w", key, err)
	}
	return nil
}
