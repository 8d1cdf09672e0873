package file

import (
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/tool"
)

// Defaults used when an Options field is zero.
const (
	DefaultMaxReadBytes  = 100_000
	DefaultReadLines     = 500
	DefaultMaxLineLength = 2000
	DefaultSearchLimit   = 100
	DefaultMaxFileSize   = 20 << 20
)

// Options configure the file tools.
type Options struct {
	// FS is the file system the tools read and write; nil means this
	// machine's (backend.OSFS). A remote backend's (SFTP) makes the
	// tools act on the remote host, in its paths.
	FS backend.FS
	// Workdir returns the working directory of a task; relative paths
	// resolve against it. Nil means the process's directory. Pass the
	// terminal's Workdir method so both tools agree.
	Workdir func(taskID string) string
	// MaxReadBytes caps the text one read_file call returns.
	MaxReadBytes int
	// MaxLineLength cuts longer lines in read_file and search output.
	MaxLineLength int
	// MaxFileSize is the largest file read_file, patch and search_files
	// will load.
	MaxFileSize int64
	// WriteGuard, when set, is asked before any file is written or
	// deleted; an error refuses the write with its text.
	WriteGuard func(absPath string) error
	// ReadGuard, when set, is asked before a file is read or searched; an
	// error refuses the read with its text, and search_files leaves such
	// files out. The sandbox's Policy.CheckRead hides credentials.
	ReadGuard func(absPath string) error
	// Redact, when set, is applied to file content shown to the model.
	Redact func(string) string
}

func (o Options) withDefaults() Options {
	if o.FS == nil {
		o.FS = backend.OSFS{}
	}
	if o.Workdir == nil {
		o.Workdir = func(string) string {
			wd, err := os.Getwd()
			if err != nil {
				return "/"
			}
			return wd
		}
	}
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = DefaultMaxReadBytes
	}
	if o.MaxLineLength <= 0 {
		o.MaxLineLength = DefaultMaxLineLength
	}
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxFileSize
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	return o
}

// Tools is the file toolset.
type Tools struct {
	opts Options
	fs   backend.FS
}

// New returns the file tools with opts.
func New(opts Options) *Tools {
	opts = opts.withDefaults()
	return &Tools{opts: opts, fs: opts.FS}
}

// All returns read_file, write_file, patch and search_files.
func (t *Tools) All() []tool.Tool {
	return []tool.Tool{t.ReadFile(), t.WriteFile(), t.Patch(), t.SearchFiles()}
}

// resolve makes p absolute against the task's working directory.
func (t *Tools) resolve(task, p string) string {
	if p == "" {
		p = "."
	}
	if len(p) > 1 && p[0] == '~' && (p[1] == '/') {
		if home := t.fs.Home(); home != "" {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.opts.Workdir(task), p)
	}
	return filepath.Clean(p)
}

// display shows p relative to the task's directory when it lies inside it.
func (t *Tools) display(task, p string) string {
	wd := t.opts.Workdir(task)
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !startsWithDotDot(rel) {
		return rel
	}
	return p
}

func startsWithDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}
