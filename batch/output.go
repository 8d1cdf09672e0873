package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Files of a run's directory.
const (
	TrajectoriesFile = "trajectories.jsonl"
	ErrorsFile       = "errors.jsonl"
	CheckpointFile   = "checkpoint.json"
	StatisticsFile   = "statistics.json"
	lockFile         = ".lock"
)

// ErrorRecord is a line of errors.jsonl: a prompt that could not run (a
// bad dataset line, an unsupported field, a runtime that could not be
// built). Such a prompt has no trajectory; --resume tries it again.
type ErrorRecord struct {
	PromptIndex int    `json:"prompt_index"`
	Prompt      string `json:"prompt,omitempty"`
	Error       string `json:"error"`
	Timestamp   string `json:"timestamp"`
}

// output is a run's directory. Trajectories are appended one line at a
// time and synced before the prompt counts as done, so what is on disk
// is the checkpoint: a resumed run reads it back and runs the rest.
// checkpoint.json is a summary of it for people and tools, rewritten as
// the run goes; it is never what resume trusts. One process at a time
// holds a run (a lock file), so no prompt is written twice.
type output struct {
	dir     string
	runName string

	mu    sync.Mutex
	traj  *os.File
	errs  *os.File
	lock  *os.File
	done  map[int]bool
	saved time.Time // last checkpoint.json write
}

// openOutput opens (creating) the run directory. Without resume, a run
// that already holds trajectories is refused; with it, the trajectories
// on disk are read back (a torn last line, from a crash in the middle of
// a write, is cut off) and checked against the dataset.
func openOutput(dir, runName string, resume bool, prompts []Prompt) (*output, []string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("run directory: %w", err)
	}
	o := &output{dir: dir, runName: runName, done: map[int]bool{}}
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("run directory: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, nil, fmt.Errorf("run %s is being written by another hermes batch process (%s is locked)", runName, dir)
	}
	o.lock = lock
	ok := false
	defer func() {
		if !ok {
			o.close()
		}
	}()
	path := filepath.Join(dir, TrajectoriesFile)
	o.traj, err = os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("trajectories: %w", err)
	}
	notes, err := o.readBack(resume, prompts)
	if err != nil {
		return nil, nil, err
	}
	if _, err := o.traj.Seek(0, io.SeekEnd); err != nil {
		return nil, nil, fmt.Errorf("trajectories: %w", err)
	}
	o.errs, err = os.OpenFile(filepath.Join(dir, ErrorsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("errors file: %w", err)
	}
	ok = true
	return o, notes, nil
}

// readBack reads the trajectories already written.
func (o *output) readBack(resume bool, prompts []Prompt) ([]string, error) {
	path := o.traj.Name()
	var notes []string
	r := bufio.NewReaderSize(o.traj, 1<<20)
	var good int64
	line := 0
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 && err == nil {
			line++
			var e struct {
				PromptIndex   *int   `json:"prompt_index"`
				Conversations []Turn `json:"conversations"`
			}
			if jerr := json.Unmarshal(b, &e); jerr != nil || e.PromptIndex == nil {
				return nil, fmt.Errorf("%s line %d is not a trajectory; fix or remove it before resuming", path, line)
			}
			if !resume {
				return nil, fmt.Errorf("%s already holds trajectories: add --resume to finish that run, or choose another --run-name", o.dir)
			}
			i := *e.PromptIndex
			if i < 0 || i >= len(prompts) || prompts[i].Problem != "" || len(e.Conversations) < 2 || e.Conversations[1].Value != prompts[i].Text {
				return nil, fmt.Errorf("%s line %d (prompt %d) does not match the dataset: was the dataset changed since the run started?", path, line, i)
			}
			if o.done[i] {
				notes = append(notes, fmt.Sprintf("prompt %d appears twice in %s (line %d); the first is kept", i, path, line))
			}
			o.done[i] = true
			good += int64(len(b))
			continue
		}
		if err == io.EOF {
			if len(b) > 0 {
				// A line without its newline is a write a crash cut short.
				if terr := o.traj.Truncate(good); terr != nil {
					return nil, fmt.Errorf("trajectories: cutting a torn last line: %w", terr)
				}
				notes = append(notes, fmt.Sprintf("%s ended in a torn line (%d bytes) from an interrupted write; it was removed and that prompt runs again", path, len(b)))
			}
			return notes, nil
		}
		if err != nil {
			return nil, fmt.Errorf("trajectories: %w", err)
		}
	}
}

// isDone reports whether prompt i has a trajectory on disk.
func (o *output) isDone(i int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.done[i]
}

// write appends e and syncs it to disk; then the prompt is done.
func (o *output) write(e *Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("trajectory of prompt %d: %w", e.PromptIndex, err)
	}
	b = append(b, '\n')
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done[e.PromptIndex] {
		return fmt.Errorf("prompt %d already has a trajectory; not writing it twice", e.PromptIndex)
	}
	if _, err := o.traj.Write(b); err != nil {
		return fmt.Errorf("writing trajectory of prompt %d: %w", e.PromptIndex, err)
	}
	if err := o.traj.Sync(); err != nil {
		return fmt.Errorf("syncing trajectory of prompt %d: %w", e.PromptIndex, err)
	}
	o.done[e.PromptIndex] = true
	return o.maybeCheckpoint(false)
}

// writeError records a prompt that could not run.
func (o *output) writeError(rec ErrorRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.errs.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing error of prompt %d: %w", rec.PromptIndex, err)
	}
	return o.errs.Sync()
}

// checkpoint rewrites checkpoint.json now.
func (o *output) checkpoint() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.maybeCheckpoint(true)
}

// maybeCheckpoint rewrites checkpoint.json at most once a second unless
// forced; mu is held.
func (o *output) maybeCheckpoint(force bool) error {
	now := time.Now()
	if !force && now.Sub(o.saved) < time.Second {
		return nil
	}
	o.saved = now
	done := make([]int, 0, len(o.done))
	for i := range o.done {
		done = append(done, i)
	}
	slices.Sort(done)
	b, err := json.MarshalIndent(struct {
		RunName          string `json:"run_name"`
		CompletedPrompts []int  `json:"completed_prompts"`
		LastUpdated      string `json:"last_updated"`
	}{o.runName, done, now.Format(time.RFC3339)}, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(o.dir, CheckpointFile), b)
}

// writeAtomic replaces path with b (a temporary file renamed over it).
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// entries reads every trajectory of the run back, for the statistics.
func (o *output) entries() ([]Entry, error) {
	b, err := os.ReadFile(filepath.Join(o.dir, TrajectoriesFile))
	if err != nil {
		return nil, err
	}
	var out []Entry
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		var e Entry
		if err := json.Unmarshal(b[:i], &e); err != nil {
			return nil, fmt.Errorf("%s: %w", TrajectoriesFile, err)
		}
		out = append(out, e)
		b = b[i+1:]
	}
	return out, nil
}

func (o *output) close() error {
	var errs []error
	for _, f := range []*os.File{o.traj, o.errs} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	if o.lock != nil {
		errs = append(errs, o.lock.Close()) // releases the lock
	}
	return errors.Join(errs...)
}
