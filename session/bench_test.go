package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// reportPercentiles adds p50 and p99 of the measured durations to the
// benchmark output, in the given unit.
func reportPercentiles(b *testing.B, ds []time.Duration, unit time.Duration, name string) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(p float64) float64 {
		return float64(ds[int(p*float64(len(ds)-1))]) / float64(unit)
	}
	b.ReportMetric(at(0.50), "p50-"+name)
	b.ReportMetric(at(0.99), "p99-"+name)
}

func BenchmarkAppendMessage(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	words := vocabulary(5000)
	rng := rand.New(rand.NewPCG(1, 2))
	// A realistic session: a ~16 KB system prompt stored beside it.
	x, err := s.CreateSession(ctx, Session{SystemPrompt: sentence(rng, words, 2500)})
	if err != nil {
		b.Fatal(err)
	}
	msgs := make([]llm.Message, 256)
	for i := range msgs {
		msgs[i] = llm.Message{Role: llm.RoleAssistant, Content: sentence(rng, words, 80)} // ~500 chars
	}
	ds := make([]time.Duration, 0, b.N)
	cpu := cpuTime()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := s.AppendMessage(ctx, x.ID, msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	reportCPU(b, cpu, len(ds), time.Microsecond, "us")
	reportPercentiles(b, ds, time.Microsecond, "us")
}

// BenchmarkSearch1M searches 1,000,000 stored messages (10,000 sessions
// of 100 messages, Zipf-distributed words). The database is built once
// and cached in the temp directory; building it takes about a minute.
func BenchmarkSearch1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a 1M-message database")
	}
	// The cache is keyed by the schema, so a schema change rebuilds it.
	path := filepath.Join(os.TempDir(), "hermes-session-bench-1m-"+schemaHash()+".db")
	if _, err := os.Stat(path + ".done"); err != nil {
		b.Logf("building %s (once)", path)
		start := time.Now()
		if err := buildSearchDB(path, 10_000, 100); err != nil {
			b.Fatal(err)
		}
		b.Logf("built in %v", time.Since(start))
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	words := vocabulary(20_000)
	exclude := benchSessionID(42)
	queries := []struct{ name, q string }{
		{"rare-word", words[15_000]},
		{"mid-word", words[500]},
		{"two-words", words[40] + " " + words[300]},
		{"top-10-word", words[10]},
		{"most-common-word", words[0]}, // in most messages: the worst case
		{"three-words", words[3] + " " + words[120] + " " + words[2000]},
		{"natural-language", "how do I fix the " + words[300] + " in " + words[2000]},
		{"no-match-fallback", words[7] + " zzzznotaword"},
	}
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			n := 0
			cpu := cpuTime()
			for b.Loop() {
				start := time.Now()
				res, err := s.Search(ctx, q.q, SearchOptions{Limit: 10, ExcludeSession: exclude})
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				n = len(res)
			}
			if n == 0 {
				b.Fatalf("query %q found nothing", q.q)
			}
			reportCPU(b, cpu, len(ds), time.Millisecond, "ms")
			reportPercentiles(b, ds, time.Millisecond, "ms")
		})
	}
}

// BenchmarkList10k lists every one of 10,000 sessions.
func BenchmarkList10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	tx, err := s.w.Begin()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		id := benchSessionID(i)
		parent := any(nil)
		if i%10 == 9 {
			parent = benchSessionID(i - 1)
		}
		at := start.Add(time.Duration(i) * time.Minute).UnixNano()
		if _, err := tx.Exec(`INSERT INTO sessions (id, source, model, title, parent_session_id, started_at, last_active)
			VALUES (?, 'cli', 'gpt-5', ?, ?, ?, ?)`, id, fmt.Sprintf("Session %d", i), parent, at, at); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(appendSQL, id, "user", fmt.Sprintf("question number %d about the build", i),
			nil, nil, nil, nil, nil, nil, nil, at, 10); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		limit int
		unit  time.Duration
		uname string
	}{{"all", -1, time.Millisecond, "ms"}, {"page-50", 50, time.Microsecond, "us"}} {
		b.Run(tt.name, func(b *testing.B) {
			want := min(uint(tt.limit), 10_000)
			ds := make([]time.Duration, 0, b.N)
			cpu := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				l, err := s.List(ctx, ListOptions{Limit: tt.limit})
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t0))
				if uint(len(l)) != want {
					b.Fatalf("listed %d sessions, want %d", len(l), want)
				}
			}
			reportCPU(b, cpu, len(ds), tt.unit, tt.uname)
			reportPercentiles(b, ds, tt.unit, tt.uname)
		})
	}
}

func reportCPU(b *testing.B, start time.Duration, n int, unit time.Duration, name string) {
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n)/float64(unit), "cpu-"+name+"/op")
	}
}

// schemaHash identifies the embedded migrations.
func schemaHash() string {
	ms, _ := migrations()
	h := sha256.New()
	for _, m := range ms {
		h.Write([]byte(m.sql))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func benchSessionID(i int) string { return fmt.Sprintf("20260101_000000_%06x", i) }

// vocabulary returns n distinct pronounceable words, the same every call.
func vocabulary(n int) []string {
	rng := rand.New(rand.NewPCG(7, 7))
	cons, vow := "bcdfghjklmnprstvwz", "aeiou"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var w strings.Builder
		for range 2 + rng.IntN(3) {
			w.WriteByte(cons[rng.IntN(len(cons))])
			w.WriteByte(vow[rng.IntN(len(vow))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			out = append(out, w.String())
		}
	}
	return out
}

// sentence draws n words with a Zipf distribution (word 0 most common).
func sentence(rng *rand.Rand, words []string, n int) string {
	z := rand.NewZipf(rng, 1.1, 2, uint64(len(words)-1))
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[z.Uint64()]
	}
	return strings.Join(parts, " ")
}

// buildSearchDB writes sessions*perSession messages in one transaction.
func buildSearchDB(path string, sessions, perSession int) error {
	for _, suffix := range []string{"", "-wal", "-shm", ".done"} {
		os.Remove(path + suffix)
	}
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	words := vocabulary(20_000)
	rng := rand.New(rand.NewPCG(1, 1))
	tx, err := s.w.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt := tx.Stmt(s.appendStmt)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	roles := []string{"user", "assistant", "tool", "assistant"}
	for i := range sessions {
		id := benchSessionID(i)
		at := start.Add(time.Duration(i) * time.Hour)
		if _, err := tx.Exec(`INSERT INTO sessions (id, source, started_at, last_active) VALUES (?, 'cli', ?, ?)`,
			id, at.UnixNano(), at.UnixNano()); err != nil {
			return err
		}
		for j := range perSession {
			text := sentence(rng, words, 10+rng.IntN(40))
			ts := at.Add(time.Duration(j) * time.Second).UnixNano()
			if _, err := stmt.Exec(id, roles[j%len(roles)], text, nil, nil, nil, nil, nil, nil, nil, ts, len(text)/4); err != nil {
				return err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := s.w.Exec(`INSERT INTO messages_fts(messages_fts) VALUES ('optimize')`); err != nil {
		return err
	}
	return os.WriteFile(path+".done", nil, 0o600)
}
