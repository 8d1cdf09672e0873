package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// tree is a workspace's files: path -> content; a "->" prefix makes a
// symlink.
type tree map[string]string

func write(t *testing.T, dir string, files tree) {
	t.Helper()
	for p, body := range files {
		abs := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.Remove(abs)
		var err error
		if target, ok := cutPrefix(body, "->"); ok {
			err = os.Symlink(target, abs)
		} else {
			err = os.WriteFile(abs, []byte(body), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// age moves every file's modification time an hour back, as if written
// long before the next snapshot.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func newStore(t *testing.T, files tree, opts Options) (*Store, string) {
	t.Helper()
	ws := t.TempDir()
	write(t, ws, files)
	s, err := Open(t.TempDir(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, ws
}

func snap(t *testing.T, s *Store, reason string, turn int) Checkpoint {
	t.Helper()
	c, err := s.Snapshot(context.Background(), reason, turn)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func changes(t *testing.T, s *Store, id string) []Change {
	t.Helper()
	ch, err := s.Diff(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestSnapshotListsNewestFirstAndSkipsUnchanged(t *testing.T) {
	s, ws := newStore(t, tree{"a.txt": "a", "dir/b.txt": "b"}, Options{})
	first := snap(t, s, "first", 1)
	if first.Files != 2 || first.Turn != 1 || first.Reason != "first" || first.ID == "" {
		t.Fatalf("first = %+v", first)
	}
	if again := snap(t, s, "again", 2); again.ID != first.ID {
		t.Fatalf("unchanged workspace made a new checkpoint %+v", again)
	}
	write(t, ws, tree{"a.txt": "A"})
	second := snap(t, s, "second", 2)
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != second.ID || list[1].ID != first.ID {
		t.Fatalf("list = %+v", list)
	}
}

func TestSnapshotDoesNotReadFilesWithUnchangedSizeAndTime(t *testing.T) {
	s, ws := newStore(t, tree{"a.txt": "aaaa"}, Options{})
	age(t, ws)
	first := snap(t, s, "first", 1)
	// Same size, same time, different bytes: trusted as unchanged, the
	// proof that the file was not read.
	info, _ := os.Stat(filepath.Join(ws, "a.txt"))
	write(t, ws, tree{"a.txt": "bbbb"})
	os.Chtimes(filepath.Join(ws, "a.txt"), info.ModTime(), info.ModTime())
	if got := snap(t, s, "second", 2); got.ID != first.ID {
		t.Fatalf("an unchanged size and time were read again: %+v", got)
	}
	// A recent file is read again whatever its time says.
	s2, ws2 := newStore(t, tree{"a.txt": "aaaa"}, Options{})
	first = snap(t, s2, "first", 1)
	info, _ = os.Stat(filepath.Join(ws2, "a.txt"))
	write(t, ws2, tree{"a.txt": "bbbb"})
	os.Chtimes(filepath.Join(ws2, "a.txt"), info.ModTime(), info.ModTime())
	if got := snap(t, s2, "second", 2); got.ID == first.ID {
		t.Fatal("a file modified during the last snapshot's window was trusted")
	}
}

func TestDiffAndRestoreByteForByte(t *testing.T) {
	s, ws := newStore(t, tree{"keep.txt": "keep", "edit.txt": "old\x00bytes", "gone/deep.txt": "deep", "link": "->keep.txt", "run.sh": "#!/bin/sh\n"}, Options{})
	os.Chmod(filepath.Join(ws, "run.sh"), 0o755)
	cp := snap(t, s, "before", 1)

	write(t, ws, tree{"edit.txt": "new", "new/made.txt": "made", "link": "->edit.txt"})
	os.RemoveAll(filepath.Join(ws, "gone"))
	os.Chmod(filepath.Join(ws, "run.sh"), 0o600)

	want := []Change{{"edit.txt", Modified}, {"gone/deep.txt", Deleted}, {"link", Modified}, {"new/made.txt", Added}, {"run.sh", Modified}}
	if got := changes(t, s, cp.ID); !slices.Equal(got, want) {
		t.Fatalf("diff = %v, want %v", got, want)
	}
	undo, restored, err := s.Restore(context.Background(), cp.ID[:6])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(restored, want) || undo.Reason != "before restore of "+cp.ID {
		t.Fatalf("restore = %+v %v", undo, restored)
	}
	for p, body := range map[string]string{"keep.txt": "keep", "edit.txt": "old\x00bytes", "gone/deep.txt": "deep", "run.sh": "#!/bin/sh\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != body {
			t.Errorf("%s = %q, %v; want %q", p, b, err, body)
		}
	}
	if fi, _ := os.Stat(filepath.Join(ws, "run.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode %v", fi.Mode())
	}
	if l, _ := os.Readlink(filepath.Join(ws, "link")); l != "keep.txt" {
		t.Errorf("link -> %q", l)
	}
	if _, err := os.Lstat(filepath.Join(ws, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("created file and directory not removed: %v", err)
	}
	if got := changes(t, s, cp.ID); len(got) != 0 {
		t.Fatalf("after restore, diff = %v", got)
	}

	// The restore is undone by restoring the checkpoint it took first.
	if _, _, err := s.Restore(context.Background(), undo.ID); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "new/made.txt")); string(b) != "made" {
		t.Fatalf("undo did not bring back new/made.txt: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "gone/deep.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("undo left gone/deep.txt")
	}
}

func TestGitignoreAndGitDirAreLeftAlone(t *testing.T) {
	s, ws := newStore(t, tree{".gitignore": "*.log\nbuild/\n", ".git/HEAD": "ref: main\n", "src.go": "package x", "x.log": "log1", "build/out": "bin1"}, Options{})
	cp := snap(t, s, "first", 1)
	if cp.Files != 2 {
		t.Fatalf("files = %d, want .gitignore and src.go", cp.Files)
	}
	write(t, ws, tree{"x.log": "log2", "build/out": "bin2", "build/more": "x", ".git/HEAD": "ref: other\n", "src.go": "package y"})
	if got := changes(t, s, cp.ID); !slices.Equal(got, []Change{{"src.go", Modified}}) {
		t.Fatalf("diff = %v", got)
	}
	if _, _, err := s.Restore(context.Background(), cp.ID); err != nil {
		t.Fatal(err)
	}
	for p, body := range map[string]string{"x.log": "log2", "build/out": "bin2", ".git/HEAD": "ref: other\n", "src.go": "package x"} {
		if b, _ := os.ReadFile(filepath.Join(ws, p)); string(b) != body {
			t.Errorf("%s = %q, want %q", p, b, body)
		}
	}
}

func TestOverTheSizeCapIsSkipped(t *testing.T) {
	s, _ := newStore(t, tree{"a": "1", "b": "2", "c": "3"}, Options{MaxFiles: 2})
	_, err := s.Snapshot(context.Background(), "x", 1)
	var big *TooLargeError
	if !errors.As(err, &big) || big.MaxFiles != 2 {
		t.Fatalf("err = %v", err)
	}
	s, _ = newStore(t, tree{"a": "12345"}, Options{MaxBytes: 4})
	if _, err = s.Snapshot(context.Background(), "x", 1); !errors.As(err, &big) {
		t.Fatalf("err = %v", err)
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("list = %v", list)
	}
}

func TestUnknownCheckpoint(t *testing.T) {
	s, _ := newStore(t, tree{"a": "1"}, Options{})
	if _, err := s.Diff(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

// Small files go into one pack per snapshot, large ones stay loose; a
// store opened afresh (another hermes process) restores from both.
func TestPackedAndLooseBlobsRestoreFromAFreshStore(t *testing.T) {
	big := string(make([]byte, packLimit+10))
	ws := t.TempDir()
	dir := t.TempDir()
	write(t, ws, tree{"a.txt": "alpha\n", "sub/b.txt": "beta\n", "big.bin": big})
	s, err := Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := snap(t, s, "first", 1)
	packsDir := filepath.Join(s.Dir(), "packs")
	if des, _ := os.ReadDir(packsDir); len(des) != 2 {
		t.Fatalf("want one pack and its index, got %d files", len(des))
	}
	write(t, ws, tree{"a.txt": "changed\n"})
	os.Remove(filepath.Join(ws, "sub", "b.txt"))
	os.Remove(filepath.Join(ws, "big.bin"))
	other, err := Open(dir, ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := other.Restore(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n", "big.bin": big} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != want {
			t.Fatalf("%s not restored: %v", p, err)
		}
	}
}
