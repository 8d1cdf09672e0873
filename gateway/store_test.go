package gateway

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// storeClock is a fake clock: Now moves only with Advance, and the timers
// After hands out fire when Advance reaches them.
type storeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []storeTimer
	// armed receives the deadline of every timer handed out, so a test
	// can wait until the code under test waits.
	armed chan time.Time
}

type storeTimer struct {
	at time.Time
	ch chan time.Time
}

func newStoreClock() *storeClock {
	return &storeClock{now: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), armed: make(chan time.Time, 4096)}
}

func (c *storeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *storeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	at := c.now.Add(d)
	if d <= 0 {
		ch <- c.now
	} else {
		c.timers = append(c.timers, storeTimer{at, ch})
	}
	select {
	case c.armed <- at:
	default:
	}
	return ch
}

func (c *storeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.ch <- c.now
	}
	c.timers = kept
}

// waitArmed returns once the code under test waits on a timer due at or
// after at.
func (c *storeClock) waitArmed(t *testing.T, at time.Time) {
	t.Helper()
	guard := time.After(10 * time.Second)
	for {
		select {
		case got := <-c.armed:
			if !got.Before(at) {
				return
			}
		case <-guard:
			t.Fatalf("nothing waits for %s", at)
		}
	}
}

func openTestStore(t *testing.T, path string, clock *storeClock) *Store {
	t.Helper()
	st, err := OpenStore(path, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestStoreFilesArePrivate(t *testing.T) {
	home := t.TempDir()
	path := StorePath(home)
	st := openTestStore(t, path, newStoreClock())
	if err := st.Set(context.Background(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{filepath.Join(home, "gateway"): 0o700, path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", p, got, want)
		}
	}
}

func TestStoreRefusesACorruptFileAndLeavesItUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.db")
	garbage := bytes.Repeat([]byte("not a database, but someone's notes\n"), 200)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := OpenStore(path, nil)
	if !errors.Is(err, ErrStoreCorrupt) {
		t.Fatalf("open: %v, want ErrStoreCorrupt", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, garbage) {
		t.Fatal("the corrupt file was modified")
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a -wal file was created beside the refused file: %v", err)
	}
}

func TestStoreRefusesAForeignOrNewerDatabase(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE recipes (name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenStore(foreign, nil); !errors.Is(err, ErrStoreForeign) {
		t.Fatalf("foreign database: %v, want ErrStoreForeign", err)
	}

	newer := filepath.Join(dir, "newer.db")
	st, err := OpenStore(newer, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err = sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenStore(newer, nil); !errors.Is(err, ErrStoreTooNew) {
		t.Fatalf("newer schema: %v, want ErrStoreTooNew", err)
	}
}

func TestKVSurvivesAReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gateway.db")
	clock := newStoreClock()
	st := openTestStore(t, path, clock)
	if _, ok, err := st.Get(ctx, "telegram.offset"); ok || err != nil {
		t.Fatalf("unset key: ok %v err %v", ok, err)
	}
	for _, v := range []string{"41", "42"} {
		if err := st.Set(ctx, "telegram.offset", v); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st = openTestStore(t, path, clock)
	if v, ok, err := st.Get(ctx, "telegram.offset"); v != "42" || !ok || err != nil {
		t.Fatalf("after reopen: %q %v %v", v, ok, err)
	}
}

func TestSeenDeduplicatesAcrossAReopenForSevenDays(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gateway.db")
	clock := newStoreClock()
	st := openTestStore(t, path, clock)
	seen := func(platform, id string) bool {
		t.Helper()
		fresh, err := st.Seen(ctx, platform, id)
		if err != nil {
			t.Fatal(err)
		}
		return fresh
	}
	if !seen("telegram", "100:7") {
		t.Fatal("a new message is not fresh")
	}
	if seen("telegram", "100:7") {
		t.Fatal("the same message twice is fresh twice")
	}
	if !seen("slack", "100:7") {
		t.Fatal("the id on another platform is not fresh")
	}
	st.Close()
	st = openTestStore(t, path, clock)
	clock.Advance(6 * 24 * time.Hour)
	if seen("telegram", "100:7") {
		t.Fatal("the message is fresh again after a restart")
	}
	clock.Advance(2 * 24 * time.Hour)
	if !seen("telegram", "100:7") {
		t.Fatal("the id is still kept more than seven days later")
	}
}

func TestQueueKeepsOrderAcrossAReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gateway.db")
	clock := newStoreClock()
	st := openTestStore(t, path, clock)
	msg := func(id, text string) Inbound {
		return Inbound{Platform: "telegram", Chat: ChatRef{ChatID: "100", ThreadID: "3"}, ChatType: Group, MessageID: id,
			UserID: "7", UserName: "Ann", Text: text, Addressed: true}
	}
	withFile := msg("100:3", "third")
	withFile.Attachments = []Attachment{{Kind: "image", Name: "cat.jpg", MIME: "image/jpeg", Size: 1234,
		Open: func(context.Context) (io.ReadCloser, error) { return nil, errors.New("unused") }}}
	for _, q := range []struct {
		key string
		m   Inbound
	}{{"telegram:b", msg("200:1", "other chat")}, {"telegram:a", msg("100:1", "first")}, {"telegram:a", msg("100:2", "second")}, {"telegram:a", withFile}} {
		if _, err := st.Enqueue(ctx, q.key, q.m); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st = openTestStore(t, path, clock)

	keys, err := st.QueuedKeys(ctx)
	if err != nil || len(keys) != 2 || keys[0] != "telegram:b" || keys[1] != "telegram:a" {
		t.Fatalf("queued keys after reopen: %v %v", keys, err)
	}
	q, err := st.Queued(ctx, "telegram:a")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, x := range q {
		texts = append(texts, x.Message.Text)
	}
	if len(q) != 3 || texts[0] != "first" || texts[1] != "second" || texts[2] != "third" {
		t.Fatalf("queue of a: %q", texts)
	}
	got := q[2].Message
	if got.Chat != (ChatRef{"100", "3"}) || got.ChatType != Group || got.MessageID != "100:3" || got.UserID != "7" ||
		got.UserName != "Ann" || !got.Addressed || got.Platform != "telegram" {
		t.Fatalf("message read back: %+v", got)
	}
	if len(got.Attachments) != 1 {
		t.Fatalf("attachments read back: %+v", got.Attachments)
	}
	if a := got.Attachments[0]; a.Kind != "image" || a.Name != "cat.jpg" || a.MIME != "image/jpeg" || a.Size != 1234 || a.Open != nil {
		t.Fatalf("attachment read back: %+v", a)
	}

	for _, x := range q[:2] {
		if err := st.Dequeue(ctx, x.Seq); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Dequeue(ctx, q[0].Seq); err != nil {
		t.Fatalf("dequeuing twice: %v", err)
	}
	if q, _ := st.Queued(ctx, "telegram:a"); len(q) != 1 || q[0].Message.Text != "third" {
		t.Fatalf("after dequeuing two: %+v", q)
	}
	b, _ := st.Queued(ctx, "telegram:b")
	st.Dequeue(ctx, b[0].Seq)
	if keys, _ := st.QueuedKeys(ctx); len(keys) != 1 || keys[0] != "telegram:a" {
		t.Fatalf("queued keys once b is empty: %v", keys)
	}
}

func TestSessionMappingSurvivesAReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gateway.db")
	clock := newStoreClock()
	st := openTestStore(t, path, clock)
	if id, err := st.Session(ctx, "telegram:dm:7"); id != "" || err != nil {
		t.Fatalf("no session yet: %q %v", id, err)
	}
	st.SetSession(ctx, "telegram:dm:7", "s1")
	if err := st.SetSession(ctx, "telegram:dm:7", "s2"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openTestStore(t, path, clock)
	if id, err := st.Session(ctx, "telegram:dm:7"); id != "s2" || err != nil {
		t.Fatalf("after reopen: %q %v", id, err)
	}
	if err := st.SetSession(ctx, "telegram:dm:7", ""); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Session(ctx, "telegram:dm:7"); id != "" {
		t.Fatalf("after clearing: %q", id)
	}
}
