package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Target names one of the two files.
type Target string

// The two targets.
const (
	TargetMemory Target = "memory" // MEMORY.md: the agent's notes
	TargetUser   Target = "user"   // USER.md: the user profile
)

// Default character budgets (memory.memory_char_limit, memory.user_char_limit).
const (
	DefaultMemoryLimit = 2200
	DefaultUserLimit   = 1375
)

// Options configure a Store.
type Options struct {
	// Dir holds the files; normally Dir(HERMES_HOME).
	Dir string
	// MemoryLimit and UserLimit are the budgets in characters; 0 means
	// the default.
	MemoryLimit int
	UserLimit   int
}

// Dir returns the memories directory of a HERMES_HOME.
func Dir(home string) string { return filepath.Join(home, "memories") }

// Snapshot is the frozen copy of both files rendered for the system
// prompt; a field is empty when its file has no entries.
type Snapshot struct {
	Memory string
	User   string
}

// Store holds the live entries of both files.
type Store struct {
	mu       sync.Mutex
	dir      string
	mem      *file
	user     *file
	snap     Snapshot
	failures int // failed consolidation attempts this turn
}

// Open creates the directory when missing, reads both files and freezes
// the snapshot.
func Open(o Options) (*Store, error) {
	if o.Dir == "" {
		return nil, fmt.Errorf("memory: open: no directory given")
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.UserLimit <= 0 {
		o.UserLimit = DefaultUserLimit
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("memory: open %s: %w", o.Dir, err)
	}
	s := &Store{
		dir:  o.Dir,
		mem:  &file{target: TargetMemory, name: "MEMORY.md", path: filepath.Join(o.Dir, "MEMORY.md"), limit: o.MemoryLimit},
		user: &file{target: TargetUser, name: "USER.md", path: filepath.Join(o.Dir, "USER.md"), limit: o.UserLimit},
	}
	if err := s.Load(); err != nil {
		return nil, err
	}
	return s, nil
}

// Load re-reads both files and freezes a new snapshot: call it when a new
// session starts in a long-lived process.
func (s *Store) Load() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.files() {
		f.disk = nil
		if _, err := f.refresh(); err != nil {
			return err
		}
	}
	s.snap = Snapshot{Memory: render(s.mem), User: render(s.user)}
	return nil
}

// Snapshot returns the copy frozen at the last Open or Load.
func (s *Store) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

// Sync brings the live state in line with the files at the end of a turn.
// Writes already reached the disk when they were made; what Sync adds is
// picking up files changed outside the store (by hand, by another
// process) so the next operation and Entries see them. It never writes,
// so it cannot overwrite such a change. It returns the targets whose file
// had changed.
func (s *Store) Sync() ([]Target, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var changed []Target
	for _, f := range s.files() {
		c, err := f.refresh()
		if err != nil {
			return changed, err
		}
		if c {
			changed = append(changed, f.target)
		}
	}
	return changed, nil
}

// StartTurn resets the per-turn count of failed consolidation attempts
// (see Apply).
func (s *Store) StartTurn() {
	s.mu.Lock()
	s.failures = 0
	s.mu.Unlock()
}

// Entries returns the live entries of a target, as last read or written.
func (s *Store) Entries(t Target) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.file(t); f != nil {
		return slices.Clone(f.entries)
	}
	return nil
}

// Usage returns the target's size and budget in characters.
func (s *Store) Usage(t Target) (used, limit int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.file(t); f != nil {
		return chars(f.entries), f.limit
	}
	return 0, 0
}

// Path returns the file of a target.
func (s *Store) Path(t Target) string {
	if f := s.file(t); f != nil {
		return f.path
	}
	return ""
}

func (s *Store) files() []*file { return []*file{s.mem, s.user} }

func (s *Store) file(t Target) *file {
	switch t {
	case TargetMemory:
		return s.mem
	case TargetUser:
		return s.user
	}
	return nil
}
