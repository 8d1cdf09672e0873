package logfile

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/redact"
)

// Name is the log file's name in its directory.
const Name = "hermes.log"

// Path is the log file of a hermes home.
func Path(home string) string { return filepath.Join(home, "logs", Name) }

// Options say where and how much to log.
type Options struct {
	// Path is the log file (Path(home)).
	Path string
	// Level is the least severe level written.
	Level slog.Level
	// MaxSize and MaxFiles are the rotation's size cap and how many
	// rotated files are kept.
	MaxSize  int64
	MaxFiles int
	// Mask masks secrets in every message and attribute; nil masks by
	// shape only (redact.String).
	Mask func(string) string
	// Attrs are added to every record of the file (the command, the
	// process id), not to Also's.
	Attrs []slog.Attr
	// Also receives every record too, masked the same way (a process's
	// stderr, at a level of its own); nil for none.
	Also slog.Handler
}

// Log is an open log: its Logger, writing to the file and to
// Options.Also, File, writing to the file only, and what to close.
type Log struct {
	*slog.Logger
	File *slog.Logger
	w    *Writer
}

// Open opens the log file and returns a logger writing masked JSON lines
// to it (and to o.Also).
func Open(o Options) (*Log, error) {
	w, err := NewWriter(o.Path, o.MaxSize, o.MaxFiles)
	if err != nil {
		return nil, err
	}
	mask := o.Mask
	if mask == nil {
		mask = redact.String
	}
	file := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: o.Level}).WithAttrs(o.Attrs)
	l := &Log{File: slog.New(redact.NewHandlerFunc(file, mask)), w: w}
	l.Logger = l.File
	if o.Also != nil {
		l.Logger = slog.New(redact.NewHandlerFunc(slog.NewMultiHandler(file, o.Also), mask))
	}
	return l, nil
}

// Discard is a Log that writes nothing, for when the file cannot be
// opened: hermes runs on without its log.
func Discard(also slog.Handler) *Log {
	if also == nil {
		also = slog.DiscardHandler
	}
	return &Log{Logger: slog.New(redact.NewHandler(also)), File: slog.New(slog.DiscardHandler)}
}

// Close closes the file.
func (l *Log) Close() error {
	if l.w == nil {
		return nil
	}
	return l.w.Close()
}

// ParseLevel reads debug, info, warn (warning) or error, in any case.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "info":
		return slog.LevelInfo, nil
	case "warning":
		return slog.LevelWarn, nil
	}
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("level %q: one of debug, info, warn, error", s)
	}
	return l, nil
}

var _ io.Writer = (*Writer)(nil)
