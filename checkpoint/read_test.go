package checkpoint

import (
	"context"
	"errors"
	"os"
	"testing"
)

// ReadFile gives back what a checkpoint holds, after the workspace moved on.
func TestReadFileReturnsTheCheckpointedContent(t *testing.T) {
	s, ws := newStore(t, tree{"a.txt": "before\n", "dir/b.txt": "bee\n", "link": "->a.txt"}, Options{})
	cp, err := s.Snapshot(context.Background(), "test", 1)
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, tree{"a.txt": "after\n"})
	for path, want := range map[string]string{"a.txt": "before\n", "dir/b.txt": "bee\n", "link": "-> a.txt"} {
		got, err := s.ReadFile(cp.ID, path, 0)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", path, got, err, want)
		}
	}
	if got, err := s.ReadFile(cp.ID, "a.txt", 3); err != nil || string(got) != "bef" {
		t.Errorf("capped read: %q %v", got, err)
	}
	if _, err := s.ReadFile(cp.ID, "nope.txt", 0); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a path the checkpoint lacks: %v", err)
	}
}
