package gateway

import (
	"context"
	"fmt"
)

// Seen records that the platform's message messageID arrived and reports
// whether it is new: false means it was recorded before (an update the
// platform delivered twice) and must be ignored. Ids are kept seven days.
func (s *Store) Seen(ctx context.Context, platform, messageID string) (fresh bool, err error) {
	if err := s.pruneIfDue(ctx); err != nil {
		return false, err
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO seen (platform, message_id, seen_at) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, platform, messageID, s.now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("gateway store: record message %s %s: %w", platform, messageID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("gateway store: record message %s %s: %w", platform, messageID, err)
	}
	return n == 1, nil
}
