package checkpoint

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// ReadFile returns the content a checkpoint (id or a unique prefix) holds
// for path (slash-separated, relative to the workspace), at most limit
// bytes (0: no limit); a symlink reads as "-> target". A path the
// checkpoint does not hold is os.ErrNotExist.
func (s *Store) ReadFile(id, path string, limit int64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.find(id)
	if err != nil {
		return nil, err
	}
	i, ok := slices.BinarySearchFunc(m.entries, path, func(e entry, p string) int { return strings.Compare(e.Path, p) })
	if !ok {
		return nil, fmt.Errorf("checkpoint %s: %s: %w", m.ID, path, os.ErrNotExist)
	}
	e := m.entries[i]
	if e.Hash == "" {
		return []byte("-> " + e.Link), nil
	}
	r, err := s.openBlob(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %s: %w", m.ID, path, err)
	}
	defer r.Close()
	var src io.Reader = r
	if limit > 0 {
		src = io.LimitReader(r, limit)
	}
	b, err := io.ReadAll(src)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %s: %w", m.ID, path, err)
	}
	return b, nil
}
