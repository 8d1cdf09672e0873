package checkpoint

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults for Options.
const (
	DefaultMaxFiles = 50_000
	DefaultMaxBytes = 500 << 20
)

// Options configures a Store. The zero value uses the defaults.
type Options struct {
	// MaxFiles is the most files a workspace may hold to be snapshotted
	// (0: DefaultMaxFiles).
	MaxFiles int
	// MaxBytes is the most bytes its files may add up to (0: DefaultMaxBytes).
	MaxBytes int64
}

// Checkpoint describes one snapshot.
type Checkpoint struct {
	ID     string    `json:"id"`
	Seq    int       `json:"seq"`
	Time   time.Time `json:"time"`
	Turn   int       `json:"turn"`
	Reason string    `json:"reason"`
	Files  int       `json:"files"`
	Bytes  int64     `json:"bytes"`
}

// TooLargeError says a workspace is over the size cap and was not
// snapshotted.
type TooLargeError struct {
	Workspace string
	MaxFiles  int
	MaxBytes  int64
	// Files or Bytes is the count that went over (the walk stops there).
	Files int
	Bytes int64
}

func (e *TooLargeError) Error() string {
	if e.Files > e.MaxFiles {
		return fmt.Sprintf("checkpoints skipped: %s holds more than %d files (checkpoints.max_files)", e.Workspace, e.MaxFiles)
	}
	return fmt.Sprintf("checkpoints skipped: %s holds more than %d MB (checkpoints.max_bytes)", e.Workspace, e.MaxBytes>>20)
}

// ErrNotFound is returned for a checkpoint id that names none.
var ErrNotFound = errors.New("no such checkpoint")

// Store is the checkpoints of one workspace.
type Store struct {
	dir       string // this workspace's store
	workspace string
	opts      Options

	mu       sync.Mutex
	last     *manifest // the newest manifest, as last read or written
	packs    *packs
	prepared bool // the directories exist
}

// entry is one file of a manifest.
type entry struct {
	Path  string `json:"p"`
	Hash  string `json:"h,omitempty"` // regular files
	Link  string `json:"l,omitempty"` // symlinks
	Mode  uint32 `json:"m"`           // permission bits
	Size  int64  `json:"s"`
	MTime int64  `json:"t"` // Unix nanoseconds
}

func (e entry) same(o entry) bool {
	return e.Path == o.Path && e.Hash == o.Hash && e.Link == o.Link && e.Mode == o.Mode
}

// header is a manifest's first line.
type header struct {
	Checkpoint
	// Scanned is when the walk began: a file modified around then may
	// have changed after it was read, whatever its time says.
	Scanned time.Time `json:"scanned"`
}

type manifest struct {
	header
	entries []entry // sorted by path
	file    string
}

// Open opens (creating it if needed) the store for workspace under dir:
// dir/<workspace-hash>/.
func Open(dir, workspace string, opts Options) (*Store, error) {
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	sum := sha256.Sum256([]byte(ws))
	s := &Store{dir: filepath.Join(dir, hex.EncodeToString(sum[:8])), workspace: ws, opts: opts}
	s.packs = newPacks(filepath.Join(s.dir, "packs"))
	if err := s.packs.reload(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	// Nothing is created until the first snapshot: opening the store is
	// part of every start, and most runs never change the workspace.
	return s, nil
}

// prepare creates the store's directories before its first write.
func (s *Store) prepare() error {
	if s.prepared {
		return nil
	}
	for _, d := range []string{s.objects(), s.manifests()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	// Names the workspace for a person looking at the store.
	name := filepath.Join(s.dir, "workspace")
	if _, err := os.Stat(name); err != nil {
		if err := os.WriteFile(name, []byte(s.workspace+"\n"), 0o600); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	s.prepared = true
	return nil
}

// Workspace is the directory this store snapshots.
func (s *Store) Workspace() string { return s.workspace }

// Dir is this workspace's store directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) objects() string   { return filepath.Join(s.dir, "objects") }
func (s *Store) manifests() string { return filepath.Join(s.dir, "manifests") }

func (s *Store) blob(hash string) string { return filepath.Join(s.objects(), hash[:2], hash[2:]) }

// manifestFiles lists the manifest files, newest first. Their names start
// with the zero-padded sequence number, so names sort in order.
func (s *Store) manifestFiles() ([]string, error) {
	des, err := os.ReadDir(s.manifests())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no snapshot yet
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var names []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".jsonl") {
			names = append(names, de.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names, nil
}

// List returns the checkpoints, newest first.
func (s *Store) List() ([]Checkpoint, error) {
	names, err := s.manifestFiles()
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, 0, len(names))
	for _, n := range names {
		h, err := readHeader(filepath.Join(s.manifests(), n))
		if err != nil {
			return nil, err
		}
		out = append(out, h.Checkpoint)
	}
	return out, nil
}

// Get returns the checkpoint whose id is id or starts with it.
func (s *Store) Get(id string) (Checkpoint, error) {
	m, err := s.find(id)
	if err != nil {
		return Checkpoint{}, err
	}
	return m.Checkpoint, nil
}

// find reads the manifest of the checkpoint id names (a unique prefix is
// enough).
func (s *Store) find(id string) (*manifest, error) {
	id = strings.TrimSpace(id)
	names, err := s.manifestFiles()
	if err != nil {
		return nil, err
	}
	var match []string
	for _, n := range names {
		_, full, _ := strings.Cut(strings.TrimSuffix(n, ".jsonl"), "-")
		if full == id {
			match = []string{n}
			break
		}
		if id != "" && strings.HasPrefix(full, id) {
			match = append(match, n)
		}
	}
	switch len(match) {
	case 0:
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	case 1:
		return readManifest(filepath.Join(s.manifests(), match[0]))
	}
	return nil, fmt.Errorf("checkpoint %q is ambiguous: %d checkpoints start with it", id, len(match))
}

// newest returns the newest manifest, nil when there is none.
func (s *Store) newest() (*manifest, error) {
	names, err := s.manifestFiles()
	if err != nil || len(names) == 0 {
		return nil, err
	}
	if s.last != nil && s.last.file == names[0] {
		return s.last, nil
	}
	m, err := readManifest(filepath.Join(s.manifests(), names[0]))
	if err != nil {
		return nil, err
	}
	s.last = m
	return m, nil
}

func readHeader(path string) (header, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		return header{}, fmt.Errorf("checkpoint: %s: %w", path, err)
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return header{}, fmt.Errorf("checkpoint: %s: %w", path, err)
	}
	return h, nil
}

func readManifest(path string) (*manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<16))
	m := &manifest{file: filepath.Base(path)}
	if err := dec.Decode(&m.header); err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", path, err)
	}
	m.entries = make([]entry, 0, m.Files)
	for dec.More() {
		var e entry
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("checkpoint: %s: %w", path, err)
		}
		if !filepath.IsLocal(filepath.FromSlash(e.Path)) {
			return nil, fmt.Errorf("checkpoint: %s: path %q leaves the workspace", path, e.Path)
		}
		m.entries = append(m.entries, e)
	}
	return m, nil
}

// writeManifest stores m as the next checkpoint, filling in its sequence
// number and id.
func (s *Store) writeManifest(m *manifest) error {
	names, err := s.manifestFiles()
	if err != nil {
		return err
	}
	m.Seq = 1
	if len(names) > 0 {
		var last int
		fmt.Sscanf(names[0], "%d-", &last)
		m.Seq = last + 1
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	m.ID = hex.EncodeToString(rnd[:])
	m.file = fmt.Sprintf("%08d-%s.jsonl", m.Seq, m.ID)

	tmp, err := os.CreateTemp(s.manifests(), ".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<16)
	enc := json.NewEncoder(w)
	if err := enc.Encode(m.header); err != nil {
		tmp.Close()
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, e := range m.entries {
		if err := enc.Encode(e); err != nil {
			tmp.Close()
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := errors.Join(w.Flush(), tmp.Close()); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.manifests(), m.file)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	s.last = m
	return nil
}
