package checkpoint

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Small blobs a snapshot stores are appended to one pack file per
// snapshot, with an index beside it, instead of a file each: creating a
// file is what costs on most disks, and a first snapshot creates
// thousands. Large blobs stay loose files under objects/.
//
// A pack is written in full and its index renamed into place before the
// manifest that needs it; a crash leaves at most an unused pack.

// packLimit is the largest blob kept in a pack.
const packLimit = 1 << 20

// packRef locates a blob in a pack.
type packRef struct {
	Pack string `json:"p"`
	Off  int64  `json:"o"`
	Len  int64  `json:"n"`
}

// packs is the store's view of its packs and the one being written.
type packs struct {
	dir string

	mu      sync.Mutex
	index   map[string]packRef // every committed pack's blobs
	loaded  map[string]bool    // index files read
	pending map[string]packRef // blobs of the pack being written
	file    *os.File
	name    string
	off     int64
}

func newPacks(dir string) *packs {
	return &packs{dir: dir, index: map[string]packRef{}, loaded: map[string]bool{}}
}

// reload reads the index files not read yet (another process may have
// written some).
func (p *packs) reload() error {
	des, err := os.ReadDir(p.dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, de := range des {
		n := de.Name()
		if !strings.HasSuffix(n, ".idx") || p.loaded[n] {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.dir, n))
		if err != nil {
			return err
		}
		var idx map[string]packRef
		if err := json.Unmarshal(b, &idx); err != nil {
			return fmt.Errorf("pack index %s: %w", n, err)
		}
		for h, r := range idx {
			p.index[h] = r
		}
		p.loaded[n] = true
	}
	return nil
}

// has reports whether h is in a pack, committed or being written.
func (p *packs) has(h string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.index[h]; ok {
		return true
	}
	_, ok := p.pending[h]
	return ok
}

// add appends blob b (hash h) to the pack being written.
func (p *packs) add(h string, b []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.index[h]; ok {
		return nil
	}
	if _, ok := p.pending[h]; ok {
		return nil
	}
	if p.file == nil {
		if err := os.MkdirAll(p.dir, 0o700); err != nil {
			return err
		}
		p.name = fmt.Sprintf("%d-%d", time.Now().UnixNano(), os.Getpid())
		f, err := os.OpenFile(filepath.Join(p.dir, p.name+".pack"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		p.file, p.off, p.pending = f, 0, map[string]packRef{}
	}
	if _, err := p.file.Write(b); err != nil {
		return err
	}
	p.pending[h] = packRef{Pack: p.name + ".pack", Off: p.off, Len: int64(len(b))}
	p.off += int64(len(b))
	return nil
}

// commit closes the pack being written and puts its index in place.
func (p *packs) commit() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.file == nil {
		return nil
	}
	f, name, pending := p.file, p.name, p.pending
	p.file, p.pending = nil, nil
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return err
	}
	b, err := json.Marshal(pending)
	if err != nil {
		return err
	}
	tmp := filepath.Join(p.dir, "."+name+".idx.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(p.dir, name+".idx")); err != nil {
		return err
	}
	p.loaded[name+".idx"] = true
	for h, r := range pending {
		p.index[h] = r
	}
	return nil
}

// abort drops the pack being written.
func (p *packs) abort() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.file != nil {
		p.file.Close()
		os.Remove(p.file.Name())
		p.file, p.pending = nil, nil
	}
}

// open returns a reader of blob h from its pack.
func (p *packs) open(h string) (io.ReadCloser, bool, error) {
	p.mu.Lock()
	r, ok := p.index[h]
	p.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	f, err := os.Open(filepath.Join(p.dir, r.Pack))
	if err != nil {
		return nil, true, err
	}
	return struct {
		io.Reader
		io.Closer
	}{bufio.NewReader(io.NewSectionReader(f, r.Off, r.Len)), f}, true, nil
}

// openBlob returns a reader of blob h, loose or packed.
func (s *Store) openBlob(h string) (io.ReadCloser, error) {
	if f, err := os.Open(s.blob(h)); err == nil {
		return f, nil
	}
	for range 2 {
		r, ok, err := s.packs.open(h)
		if ok || err != nil {
			return r, err
		}
		// Another process may have packed it since this store last looked.
		s.packs.mu.Lock()
		err = s.packs.reload()
		s.packs.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("blob %s: %w", h, os.ErrNotExist)
}
