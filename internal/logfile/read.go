package logfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Files lists the log at path and its rotated files, oldest first.
func Files(path string) ([]string, error) {
	matches, err := filepath.Glob(path + ".*")
	if err != nil {
		return nil, err
	}
	type rot struct {
		n    int
		name string
	}
	var rots []rot
	for _, m := range matches {
		n, err := strconv.Atoi(strings.TrimPrefix(m, path+"."))
		if err == nil && n > 0 {
			rots = append(rots, rot{n, m})
		}
	}
	sort.Slice(rots, func(i, j int) bool { return rots[i].n > rots[j].n })
	out := make([]string, 0, len(rots)+1)
	for _, r := range rots {
		out = append(out, r.name)
	}
	return append(out, path), nil
}

// Scan hands emit every entry of the log at path that f keeps, the
// rotated files first, in the order written. It returns the current file
// read to its end (a line not yet ended is kept back), for Follow.
func Scan(path string, f Filter, emit func(Entry)) (*Tail, error) {
	cur, err := os.Open(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("log: %w", err)
	}
	files, err := Files(path)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	for _, name := range files[:len(files)-1] {
		if err := scanFile(name, f, emit); err != nil {
			if cur != nil {
				cur.Close()
			}
			return nil, err
		}
	}
	t := &Tail{path: path, f: cur, filter: f}
	if cur != nil {
		if err := t.drain(emit); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

func scanFile(name string, f Filter, emit func(Entry)) error {
	file, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) { // rotated away meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if e := Parse(sc.Bytes()); f.Keep(e) {
			emit(e)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("log %s: %w", name, err)
	}
	return nil
}

// Tail is the current log file read up to its end, to be followed.
type Tail struct {
	path    string
	f       *os.File
	filter  Filter
	partial []byte
}

// Close closes the file.
func (t *Tail) Close() error {
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}

// drain reads the open file to its end, emitting the whole lines.
func (t *Tail) drain(emit func(Entry)) error {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.f.Read(buf)
		if n > 0 {
			t.partial = append(t.partial, buf[:n]...)
			for {
				i := bytes.IndexByte(t.partial, '\n')
				if i < 0 {
					break
				}
				if e := Parse(t.partial[:i]); t.filter.Keep(e) {
					emit(e)
				}
				t.partial = t.partial[i+1:]
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("log %s: %w", t.path, err)
		}
	}
}

// Follow emits the lines written to the log from now on, until stop is
// closed. It checks for new lines every poll; when the file at the path
// is no longer the one it reads (rotated), it reads the old one to its
// end and goes on with the new one from its start.
func (t *Tail) Follow(stop <-chan struct{}, poll time.Duration, emit func(Entry)) error {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		if t.f != nil {
			if err := t.drain(emit); err != nil {
				return err
			}
		}
		if err := t.switchIfRotated(emit); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
	}
}

func (t *Tail) switchIfRotated(emit func(Entry)) error {
	cur, err := os.Stat(t.path)
	if err != nil {
		return nil // between a rename and the new file: look again later
	}
	if t.f != nil {
		if mine, err := t.f.Stat(); err == nil && os.SameFile(cur, mine) {
			return nil
		}
		if err := t.drain(emit); err != nil {
			return err
		}
		t.f.Close()
	}
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	t.f, t.partial = f, nil
	return t.drain(emit)
}
