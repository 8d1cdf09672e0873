package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/gitignore"
)

// racyWindow is how close to a snapshot's start a file's modification
// time may be before the snapshot after it reads the file again anyway:
// some file systems keep times in whole (or even two) seconds.
const racyWindow = 2 * time.Second

// inMemoryLimit is the largest file hashed from memory; larger ones are
// streamed through a temporary blob.
const inMemoryLimit = 8 << 20

// scan walks the workspace and returns its entries, sorted by path.
// Files unchanged since prev are not read. With store, the blobs of the
// files it read are written to the object directory.
func (s *Store) scan(ctx context.Context, prev *manifest, store bool) ([]entry, error) {
	known := map[string]entry{}
	var trustBefore int64
	if prev != nil {
		for _, e := range prev.entries {
			known[e.Path] = e
		}
		trustBefore = prev.Scanned.Add(-racyWindow).UnixNano()
	}
	var (
		entries []entry
		toHash  []int
		bytes   int64
	)
	storeDir := s.dir + string(filepath.Separator)
	err := gitignore.Walk(ctx, s.workspace, func(ge gitignore.Entry, err error) error {
		if err != nil {
			if ge.Rel != "" && errors.Is(err, fs.ErrPermission) {
				return nil // unreadable directories cannot be snapshotted or restored
			}
			return fmt.Errorf("checkpoint: %w", err)
		}
		if ge.Ignored {
			return fs.SkipDir
		}
		typ := ge.Type
		if typ.IsDir() {
			if strings.HasPrefix(storeDir, ge.Path+string(filepath.Separator)) {
				return fs.SkipDir // the store itself, when it lives in the workspace
			}
			return nil
		}
		if !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			return nil // sockets, devices, pipes
		}
		info, err := ge.Info()
		if err != nil {
			return nil // gone since the directory was read
		}
		e := entry{Path: ge.Rel, Mode: uint32(info.Mode().Perm()), Size: info.Size(), MTime: info.ModTime().UnixNano()}
		if typ&fs.ModeSymlink != 0 {
			if e.Link, err = os.Readlink(ge.Path); err != nil {
				return nil
			}
			e.Size = 0
		} else {
			bytes += e.Size
			if p, ok := known[ge.Rel]; ok && p.Hash != "" && p.Size == e.Size && p.MTime == e.MTime && p.Mode == e.Mode && e.MTime < trustBefore {
				e.Hash = p.Hash
			} else {
				toHash = append(toHash, len(entries))
			}
		}
		entries = append(entries, e)
		if len(entries) > s.opts.MaxFiles || bytes > s.opts.MaxBytes {
			return &TooLargeError{Workspace: s.workspace, MaxFiles: s.opts.MaxFiles, MaxBytes: s.opts.MaxBytes, Files: len(entries), Bytes: bytes}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.hashAll(ctx, entries, toHash, store); err != nil {
		return nil, err
	}
	// Files that vanished between the listing and the read are left out.
	entries = slices.DeleteFunc(entries, func(e entry) bool { return e.Link == "" && e.Hash == "" })
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	return entries, nil
}

// hashAll hashes (and with store, keeps) the files at idx, in parallel.
func (s *Store) hashAll(ctx context.Context, entries []entry, idx []int, store bool) error {
	if len(idx) == 0 {
		return nil
	}
	work := make(chan int)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range min(len(idx), 2*runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				e := &entries[i]
				h, err := s.hashFile(filepath.Join(s.workspace, filepath.FromSlash(e.Path)), store)
				switch {
				case errors.Is(err, fs.ErrNotExist):
				case err != nil:
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				default:
					e.Hash = h
				}
			}
		}()
	}
	for _, i := range idx {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return first
}

// hashFile returns the SHA-256 of the file at path; with store, the blob
// is in the object directory when it returns.
func (s *Store) hashFile(path string, store bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if info.Size() <= inMemoryLimit {
		b, err := io.ReadAll(f)
		if err != nil {
			return "", fmt.Errorf("checkpoint: %w", err)
		}
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:])
		if store {
			err = s.putBlob(h, bytes.NewReader(b))
		}
		return h, err
	}
	if !store {
		hh := sha256.New()
		if _, err := io.Copy(hh, f); err != nil {
			return "", fmt.Errorf("checkpoint: %w", err)
		}
		return hex.EncodeToString(hh.Sum(nil)), nil
	}
	// Stream through a temporary blob, so the blob is what was hashed.
	tmp, err := os.CreateTemp(s.objects(), ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name())
	hh := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, hh), f)
	if err = errors.Join(err, tmp.Close()); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	h := hex.EncodeToString(hh.Sum(nil))
	return h, s.placeBlob(h, tmp.Name())
}

// putBlob stores r as the blob h unless the store holds it already:
// small blobs into the snapshot's pack, larger ones as a loose file.
func (s *Store) putBlob(h string, r io.Reader) error {
	if s.packs.has(h) {
		return nil
	}
	if _, err := os.Stat(s.blob(h)); err == nil {
		return nil
	}
	if br, ok := r.(*bytes.Reader); ok && br.Len() <= packLimit {
		b := make([]byte, br.Len())
		if _, err := io.ReadFull(br, b); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if err := s.packs.add(h, b); err != nil {
			return fmt.Errorf("checkpoint: pack: %w", err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(s.objects(), ".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, r)
	if err = errors.Join(err, tmp.Close()); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return s.placeBlob(h, tmp.Name())
}

// placeBlob renames the temporary file tmp to the blob h (a blob stored
// meanwhile by another snapshot has the same bytes).
func (s *Store) placeBlob(h, tmp string) error {
	if err := os.MkdirAll(filepath.Dir(s.blob(h)), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp, s.blob(h)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
