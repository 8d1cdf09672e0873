package harvest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/internal/gitignore"
	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/redact"
)

// Limits bound a walk of the workspace. A zero field takes its default.
type Limits struct {
	Entries int   // files and directories looked at (default 50,000)
	Files   int   // files read (default 200)
	File    int64 // bytes read from one file; the rest is not read (default 64 KiB)
	Bytes   int64 // bytes read from all files (default 1 MiB)
	// Secrets caps the bytes of secrets learned (default 16 KiB, about
	// five RSA-4096 keys): each byte costs the Redactor about 600 bytes of
	// index and 2.5 µs to build it.
	Secrets int
	Time    time.Duration // the whole walk (default 500 ms)
}

// Defaults fill a zero Limits.
const (
	DefaultEntries = 50_000
	DefaultFiles   = 200
	DefaultFile    = 64 << 10
	DefaultBytes   = 1 << 20
	DefaultSecrets = 16 << 10
	DefaultTime    = 500 * time.Millisecond
)

func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Entries, DefaultEntries)
	def(&l.Files, DefaultFiles)
	def(&l.Secrets, DefaultSecrets)
	if l.File <= 0 {
		l.File = DefaultFile
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	return l
}

// LimitError ends a walk that reached one of its Limits: what was found
// before it is returned with it.
type LimitError struct {
	Dir   string
	Limit string // "entries", "files", "bytes", "secrets" or "time"
	Bound string // the bound, as a reader would write it ("200 files")
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("secrets in %s: the walk stopped at its limit of %s; files beyond it were not read for secrets to mask",
		e.Dir, e.Bound)
}

// skipDirs are directories of dependencies, caches and other version
// control systems: large, and not where a project keeps its secrets.
var skipDirs = lazy.Of(skipDirSet)

func skipDirSet() map[string]bool {
	return map[string]bool{
		"node_modules": true, "bower_components": true, "jspm_packages": true, "vendor": true,
		".venv": true, "venv": true, ".env": true, // a directory named .env is a virtualenv
		"__pycache__": true, ".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
		".cache": true, ".gradle": true, ".terraform": true, ".next": true, ".nuxt": true, ".svelte-kit": true,
		".turbo": true, ".parcel-cache": true, ".yarn": true, ".pnpm-store": true, ".npm": true,
		".hg": true, ".svn": true, ".bzr": true, ".direnv": true,
	}
}

// Workspace returns the secrets held by the credential files under dir
// (see the package documentation), in the order the walk found them, as
// a Redactor learns them (redact.Candidates: no words or numbers). A
// walk stopped by one of lim's bounds returns what it found and a
// *LimitError; ctx's end stops it with ctx's error.
func Workspace(ctx context.Context, dir string, lim Limits) ([]string, error) {
	lim = lim.withDefaults()
	wctx, cancel := context.WithTimeout(ctx, lim.Time)
	defer cancel()
	h := &harvester{lim: lim, dir: dir}
	err := gitignore.Walk(wctx, dir, h.visit(true))
	for len(h.later) > 0 && err == nil {
		d := h.later[0]
		h.later = h.later[1:]
		err = gitignore.Walk(wctx, d, h.visit(false))
	}
	switch {
	case err == nil:
	case errors.As(err, new(*LimitError)):
	case ctx.Err() != nil:
		return h.found, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		err = &LimitError{Dir: dir, Limit: "time", Bound: lim.Time.String()}
	default:
		err = fmt.Errorf("secrets in %s: %w", dir, err)
	}
	return h.found, err
}

type harvester struct {
	lim     Limits
	dir     string
	entries int
	files   int
	bytes   int64
	secrets int
	found   []string
	seen    map[string]bool
	later   []string // ignored directories, walked after the rest
	buf     []byte
}

// visit returns the walk's callback; with deferIgnored (the walk of the
// workspace itself), ignored directories are kept for later rather than
// entered.
func (h *harvester) visit(deferIgnored bool) func(gitignore.Entry, error) error {
	return func(e gitignore.Entry, err error) error {
		if err != nil {
			if e.Rel == "" && deferIgnored {
				return err // the workspace itself cannot be read
			}
			return nil // nor can a command read what is in it
		}
		if h.entries++; h.entries > h.lim.Entries {
			return h.limit("entries", fmt.Sprintf("%d entries", h.lim.Entries))
		}
		name := filepath.Base(e.Path)
		switch {
		case e.Type.IsDir():
			if skipDirs.Get()[name] {
				return fs.SkipDir
			}
			if deferIgnored && e.Ignored {
				h.later = append(h.later, e.Path)
				return fs.SkipDir
			}
			return nil
		case !e.Type.IsRegular() && e.Type&fs.ModeSymlink == 0:
			return nil
		}
		k := kindOf(filepath.Base(filepath.Dir(e.Path)), name)
		if k == none {
			return nil
		}
		if h.files++; h.files > h.lim.Files {
			return h.limit("files", fmt.Sprintf("%d files", h.lim.Files))
		}
		data, ok := h.read(e.Path)
		if !ok {
			return nil
		}
		if h.bytes += int64(len(data)); h.bytes > h.lim.Bytes {
			return h.limit("bytes", size(h.lim.Bytes)+" read")
		}
		for _, v := range extract(k, string(data)) {
			for _, s := range redact.Candidates(v) {
				if h.seen[s] {
					continue
				}
				if h.secrets += len(s); h.secrets > h.lim.Secrets {
					return h.limit("secrets", size(int64(h.lim.Secrets))+" of secrets")
				}
				if h.seen == nil {
					h.seen = map[string]bool{}
				}
				h.seen[s] = true
				h.found = append(h.found, s)
			}
		}
		return nil
	}
}

func (h *harvester) limit(what, bound string) error {
	return &LimitError{Dir: h.dir, Limit: what, Bound: bound}
}

// size writes n bytes for a reader: 1 MiB, 16 KiB, 89 bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// read returns up to lim.File bytes of the regular file at path (through
// a symbolic link too). It does not block on a FIFO.
func (h *harvester) read(path string) ([]byte, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	if int64(cap(h.buf)) < h.lim.File {
		h.buf = make([]byte, h.lim.File)
	}
	n, err := io.ReadFull(f, h.buf[:h.lim.File])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, false
	}
	return h.buf[:n], true
}
