package checkpoint

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Snapshot records the workspace as a new checkpoint. When nothing
// changed since the newest checkpoint it records nothing and returns that
// one. A workspace over the size cap is a *TooLargeError.
func (s *Store) Snapshot(ctx context.Context, reason string, turn int) (Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot(ctx, reason, turn)
}

func (s *Store) snapshot(ctx context.Context, reason string, turn int) (Checkpoint, error) {
	if err := s.prepare(); err != nil {
		return Checkpoint{}, err
	}
	prev, err := s.newest()
	if err != nil {
		return Checkpoint{}, err
	}
	start := time.Now()
	entries, err := s.scan(ctx, prev, true)
	if err != nil {
		s.packs.abort()
		return Checkpoint{}, err
	}
	// The blobs are in place before the manifest that names them.
	if err := s.packs.commit(); err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: pack: %w", err)
	}
	if prev != nil && slices.EqualFunc(prev.entries, entries, entry.same) {
		return prev.Checkpoint, nil
	}
	m := &manifest{header: header{Checkpoint: Checkpoint{Time: start, Turn: turn, Reason: reason, Files: len(entries)}, Scanned: start}, entries: entries}
	for _, e := range entries {
		m.Bytes += e.Size
	}
	if err := s.writeManifest(m); err != nil {
		return Checkpoint{}, err
	}
	return m.Checkpoint, nil
}
