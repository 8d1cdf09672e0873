package gateway

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// StatusFile is what a running gateway writes to StatusPath for
// `hermes gateway status`: its process, and each platform's connection.
type StatusFile struct {
	PID       int              `json:"pid"`
	StartedAt time.Time        `json:"started_at"`
	UpdatedAt time.Time        `json:"updated_at"`
	Platforms []PlatformStatus `json:"platforms"`
}

// PlatformStatus is one platform in the StatusFile: its last State.
type PlatformStatus struct {
	Platform  string    `json:"platform"`
	Enabled   bool      `json:"enabled"`
	Connected bool      `json:"connected"`
	Detail    string    `json:"detail"`
	Since     time.Time `json:"since,omitzero"`
}

// StatusPath is where the gateway of HERMES_HOME home writes its status.
func StatusPath(home string) string { return filepath.Join(home, "gateway", "status.json") }

// Apply records an adapter's State (an enabled platform's) at now.
func (f *StatusFile) Apply(s State, now time.Time) {
	f.UpdatedAt = now
	p := PlatformStatus{Platform: s.Platform, Enabled: true, Connected: s.Connected, Detail: s.Detail, Since: s.Since}
	if p.Since.IsZero() {
		p.Since = now
	}
	for i := range f.Platforms {
		if f.Platforms[i].Platform == s.Platform {
			f.Platforms[i] = p
			return
		}
	}
	f.Platforms = append(f.Platforms, p)
}

// WriteStatus writes s to path atomically (a reader sees the old file
// or the new one, never part of one), private to the user (0600), its
// directory created when missing.
func WriteStatus(path string, s StatusFile) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".status-*.tmp")
	if err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("gateway status: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("gateway status: writing %s: %w", path, err)
	}
	// CreateTemp makes the file 0600 already; Chmod says so where a
	// umask or an odd file system might not.
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("gateway status: %w", err)
	}
	return nil
}

// ReadStatus reads the status file at path; an error wrapping
// os.ErrNotExist when no gateway has written one.
func ReadStatus(path string) (StatusFile, error) {
	var s StatusFile
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("gateway status: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return StatusFile{}, fmt.Errorf("gateway status %s: %w", path, err)
	}
	return s, nil
}
