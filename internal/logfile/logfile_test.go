package logfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/redact"
)

func TestRotationKeepsTheSizeCapAndTheFileCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", Name)
	w, err := NewWriter(path, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 200 {
		if _, err := fmt.Fprintf(w, `{"n":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", 60)); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Files(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("files %v, want hermes.log and 3 rotated", files)
	}
	last := -1
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 1000 {
			t.Errorf("%s is %d bytes, over the 1000-byte cap", f, st.Size())
		}
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var rec struct{ N int }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%s: broken line %q", f, line)
			}
			if rec.N != last+1 && last != -1 {
				t.Fatalf("%s: line %d follows %d: oldest-first order broken", f, rec.N, last)
			}
			last = rec.N
		}
	}
	if last != 199 {
		t.Fatalf("newest line %d, want 199", last)
	}
}

// Writers with files of their own, as separate processes have, append
// and rotate the same log: every line arrives once and whole.
func TestConcurrentWritersRotateWithoutLosingOrSplittingLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	const writers, lines = 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		wr, err := NewWriter(path, 4096, 1000)
		if err != nil {
			t.Fatal(err)
		}
		defer wr.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				fmt.Fprintf(wr, `{"w":%d,"i":%d,"pad":"%s"}`+"\n", w, i, strings.Repeat("y", 40))
			}
		}()
	}
	wg.Wait()
	files, _ := Files(path)
	if len(files) < 3 {
		t.Fatalf("only %d files: no rotation happened", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var rec struct{ W, I int }
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatalf("%s: broken line %q", f, line)
			}
			k := fmt.Sprint(rec.W, "/", rec.I)
			if seen[k] {
				t.Fatalf("line %s twice", k)
			}
			seen[k] = true
		}
	}
	if len(seen) != writers*lines {
		t.Fatalf("%d lines kept, want %d", len(seen), writers*lines)
	}
	if st, _ := os.Stat(path); st.Size() > 4096 {
		t.Fatalf("hermes.log is %d bytes, over the cap", st.Size())
	}
}

func TestLoggerMasksSecretsByValueAndShapeInMessageAndAttributes(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	known := "Xq7pL2vR9tK4mN8w" // masked by value only: prose leaves it alone by shape
	shaped := "sk-proj-" + strings.Repeat("Ab3x", 10)
	l, err := Open(Options{Path: path, Level: slog.LevelInfo, MaxSize: 1 << 20, MaxFiles: 2, Mask: redact.New(known).String})
	if err != nil {
		t.Fatal(err)
	}
	l.With("session", "s1").Info("ran echo "+known, "args", `{"command":"curl -H 'Authorization: Bearer `+shaped+`'"}`,
		"err", fmt.Errorf("failed with %s", known), "map", map[string]string{"k": known})
	l.Debug("below the level")
	l.Close()
	b, _ := os.ReadFile(path)
	out := string(b)
	if strings.Contains(out, known) || strings.Contains(out, shaped) {
		t.Fatalf("secret in the log: %s", out)
	}
	if strings.Contains(out, "below the level") || strings.Count(out, "\n") != 1 {
		t.Fatalf("want one line at info: %s", out)
	}
	e := Parse(bytes.TrimSpace(b))
	if !e.Valid || e.Session != "s1" || !strings.HasPrefix(e.Msg, "ran echo ") || e.Level != slog.LevelInfo {
		t.Fatalf("entry %+v", e)
	}
}

func TestFilterKeepsByLevelSessionAndTime(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC)
	line := func(at time.Time, level, sess string) Entry {
		return Parse(fmt.Appendf(nil, `{"time":%q,"level":%q,"msg":"m","session":%q}`, at.Format(time.RFC3339Nano), level, sess))
	}
	cases := []struct {
		name string
		f    Filter
		e    Entry
		keep bool
	}{
		{"warn passes warn", Filter{MinLevel: slog.LevelWarn, Leveled: true}, line(t0, "WARN", ""), true},
		{"info below warn", Filter{MinLevel: slog.LevelWarn, Leveled: true}, line(t0, "INFO", ""), false},
		{"error above warn", Filter{MinLevel: slog.LevelWarn, Leveled: true}, line(t0, "ERROR", ""), true},
		{"session prefix", Filter{Session: "2026"}, line(t0, "INFO", "20261206_x"), true},
		{"other session", Filter{Session: "abc"}, line(t0, "INFO", "20261206_x"), false},
		{"no session", Filter{Session: "abc"}, line(t0, "INFO", ""), false},
		{"since before", Filter{Since: t0.Add(-time.Minute)}, line(t0, "INFO", ""), true},
		{"since after", Filter{Since: t0.Add(time.Minute)}, line(t0, "INFO", ""), false},
		{"not a record, no filter", Filter{}, Parse([]byte("panic: boom")), true},
		{"not a record, leveled", Filter{Leveled: true}, Parse([]byte("panic: boom")), false},
	}
	for _, c := range cases {
		if got := c.f.Keep(c.e); got != c.keep {
			t.Errorf("%s: keep %v, want %v", c.name, got, c.keep)
		}
	}
}

func TestFollowReadsNewLinesAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), Name)
	w, err := NewWriter(path, 200, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fmt.Fprintln(w, `{"time":"2026-12-06T08:00:00Z","level":"INFO","msg":"old"}`)
	var old []string
	tail, err := Scan(path, Filter{}, func(e Entry) { old = append(old, e.Msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	if len(old) != 1 || old[0] != "old" {
		t.Fatalf("scanned %q", old)
	}
	got := make(chan string, 100)
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- tail.Follow(stop, 5*time.Millisecond, func(e Entry) { got <- e.Msg }) }()
	// Each line is about 60 bytes: the 200-byte cap rotates every few.
	// One line at a time, read before the next is written, so no file is
	// rotated twice under the follower.
	for i := range 10 {
		fmt.Fprintf(w, `{"time":"2026-12-06T08:00:0%dZ","level":"INFO","msg":"new %d"}`+"\n", i, i)
		select {
		case m := <-got:
			if m != fmt.Sprint("new ", i) {
				t.Fatalf("line %d: %q", i, m)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("followed only %d of 10 lines", i)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if files, _ := Files(path); len(files) < 3 {
		t.Fatalf("no rotation happened: %v", files)
	}
}
