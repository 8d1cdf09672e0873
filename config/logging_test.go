package config

import (
	"strings"
	"testing"
)

func TestLoggingKeysAreReadAndCheckedSizesParsed(t *testing.T) {
	c, err := loadDoc(t, "logging:\n  level: warn\n  max_size: 512KB\n  max_files: 3\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := c.Logging.SizeBytes(); c.Logging.Level != "warn" || n != 512<<10 || c.Logging.Files() != 3 {
		t.Fatalf("logging %+v", c.Logging)
	}
	c, _ = loadDoc(t, "", nil)
	if n, _ := c.Logging.SizeBytes(); n != DefaultLogMaxSize || c.Logging.Files() != DefaultLogMaxFiles {
		t.Fatalf("defaults %d %d", n, c.Logging.Files())
	}
	for doc, key := range map[string]string{
		"logging:\n  level: loud\n":    "logging.level",
		"logging:\n  max_size: huge\n": "logging.max_size",
		"logging:\n  max_size: 0\n":    "logging.max_size",
		"logging:\n  max_files: -1\n":  "logging.max_files",
	} {
		if _, err := loadDoc(t, doc, nil); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v, want an error naming %s", doc, err, key)
		}
	}
	for in, want := range map[string]int64{"1048576": 1 << 20, "10MB": 10 << 20, "2kb": 2 << 10, "1GiB": 1 << 30, "3 MB": 3 << 20} {
		if n, err := ParseByteSize(in); err != nil || n != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
}
