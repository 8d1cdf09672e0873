package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// workspace10k is a workspace of 10,000 small files in 100 directories,
// written an hour ago.
func workspace10k(b *testing.B) string {
	b.Helper()
	ws := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for d := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		os.MkdirAll(dir, 0o755)
		for f := range 100 {
			p := filepath.Join(dir, fmt.Sprintf("file%03d.go", f))
			if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg%d\n\n// file %d\nvar x = %d\n", d, f, d*f), 0o644); err != nil {
				b.Fatal(err)
			}
			os.Chtimes(p, old, old)
		}
	}
	return ws
}

func BenchmarkFirstSnapshot10k(b *testing.B) {
	ws := workspace10k(b)
	for b.Loop() {
		b.StopTimer()
		s, err := Open(b.TempDir(), ws, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Snapshot(context.Background(), "bench", 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIncrementalSnapshot10k(b *testing.B) {
	ws := workspace10k(b)
	s, err := Open(b.TempDir(), ws, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Snapshot(ctx, "first", 1); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		// One file changes between snapshots, as after a turn's edit.
		p := filepath.Join(ws, "pkg000", "file000.go")
		os.WriteFile(p, fmt.Appendf(nil, "package pkg0 // %d\n", i), 0o644)
		old := time.Now().Add(-time.Hour).Add(time.Duration(i) * time.Second)
		os.Chtimes(p, old, old)
		if _, err := s.Snapshot(ctx, "next", i+1); err != nil {
			b.Fatal(err)
		}
	}
}
