package gateway

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestStatusFileRoundTripsPrivatelyAndInPlace(t *testing.T) {
	home := t.TempDir()
	path := StatusPath(home)
	if path != filepath.Join(home, "gateway", "status.json") {
		t.Fatalf("path %s", path)
	}
	if _, err := ReadStatus(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no file: err = %v", err)
	}
	start := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s := StatusFile{PID: 4242, StartedAt: start}
	s.Apply(State{Platform: "telegram", Connected: true, Detail: "@hermes_bot", Since: start.Add(time.Second)}, start.Add(time.Second))
	s.Apply(State{Platform: "slack", Detail: "invalid_auth"}, start.Add(2*time.Second))
	s.Apply(State{Platform: "telegram", Detail: "409 conflict: another getUpdates is running with this token"}, start.Add(3*time.Second))
	if err := WriteStatus(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadStatus(path)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("read %+v, %v; wrote %+v", got, err, s)
	}
	want := []PlatformStatus{
		{Platform: "telegram", Enabled: true, Detail: "409 conflict: another getUpdates is running with this token", Since: start.Add(3 * time.Second)},
		{Platform: "slack", Enabled: true, Detail: "invalid_auth", Since: start.Add(2 * time.Second)},
	}
	if !reflect.DeepEqual(got.Platforms, want) || !got.UpdatedAt.Equal(start.Add(3*time.Second)) {
		t.Fatalf("platforms %+v updated %v", got.Platforms, got.UpdatedAt)
	}
	// The wire form other tools read.
	b, _ := os.ReadFile(path)
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil || raw["pid"] != 4242.0 || raw["started_at"] != "2026-05-01T10:00:00Z" ||
		raw["platforms"].([]any)[1].(map[string]any)["connected"] != false {
		t.Fatalf("file %s: %v", b, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	// A rewrite replaces the file and leaves no temporary one behind.
	s.PID = 7
	if err := WriteStatus(path, s); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("the directory holds %v", entries)
	}
	if got, _ := ReadStatus(path); got.PID != 7 {
		t.Fatalf("pid %d", got.PID)
	}
	os.WriteFile(path, []byte("{half"), 0o600)
	if _, err := ReadStatus(path); err == nil {
		t.Fatal("a broken file was read")
	}
}
