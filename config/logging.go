package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Logging holds logging.* keys: the structured log every hermes process
// appends to in HERMES_HOME/logs.
type Logging struct {
	// Level is the least severe level written: debug, info (default),
	// warn or error.
	Level string `yaml:"level"`
	// MaxSize is the size at which hermes.log is rotated: bytes, or a
	// number with KB, MB or GB (default 10MB).
	MaxSize string `yaml:"max_size"`
	// MaxFiles is how many rotated files are kept besides hermes.log
	// (default 5).
	MaxFiles int `yaml:"max_files"`
}

// Log defaults.
const (
	DefaultLogMaxSize  = 10 << 20
	DefaultLogMaxFiles = 5
)

var logLevels = []string{"debug", "info", "warn", "error"}

// SizeBytes is MaxSize in bytes, the default when unset.
func (l Logging) SizeBytes() (int64, error) {
	if strings.TrimSpace(l.MaxSize) == "" {
		return DefaultLogMaxSize, nil
	}
	return ParseByteSize(l.MaxSize)
}

// Files is MaxFiles, the default when unset.
func (l Logging) Files() int {
	if l.MaxFiles <= 0 {
		return DefaultLogMaxFiles
	}
	return l.MaxFiles
}

// ParseByteSize reads "1048576", "512KB", "10MB" or "1GB" (powers of
// 1024; a trailing "iB" or "B" is optional).
func ParseByteSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a size (bytes, or a number with KB, MB or GB, e.g. 10MB)", s)
	}
	return n * mult, nil
}

// validateLogging checks the logging block's values.
func (c *Config) validateLogging(bad func(key, value, allowed string)) {
	if l := c.Logging.Level; l != "" && !slices.Contains(logLevels, strings.ToLower(l)) {
		bad("logging.level", fmt.Sprintf("%q", l), "one of "+strings.Join(logLevels, ", "))
	}
	if _, err := c.Logging.SizeBytes(); err != nil {
		bad("logging.max_size", fmt.Sprintf("%q", c.Logging.MaxSize), "bytes, or a number with KB, MB or GB, at least 1, e.g. 10MB")
	}
	if c.Logging.MaxFiles < 0 {
		bad("logging.max_files", fmt.Sprint(c.Logging.MaxFiles), "a whole number, at least 1 (0 or unset for the default)")
	}
}
