package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// ledgerCall is one call the Sender made to the platform.
type ledgerCall struct {
	Op      string // "send", "edit", "upload"
	Chat    string
	Text    string // the text, or the caption of an upload
	Plain   bool
	EditOf  string
	Buttons [][]Button
	At      time.Time // on the fake clock
}

// ledgerAdapter is a platform that records what it is asked to send and
// answers as its script says (nil: every call succeeds).
type ledgerAdapter struct {
	clock  *storeClock
	script func(c ledgerCall, n int) error // n: how many calls to this chat came before

	mu    sync.Mutex
	calls []ledgerCall
}

func (a *ledgerAdapter) Platform() string                         { return "fake" }
func (a *ledgerAdapter) Limits() Limits                           { return Limits{MaxText: 4096, Format: "html", Edits: true} }
func (a *ledgerAdapter) Typing(context.Context, ChatRef) error    { return nil }
func (a *ledgerAdapter) Run(ctx context.Context, _ Handler) error { <-ctx.Done(); return nil }
func (a *ledgerAdapter) Send(ctx context.Context, m Outbound) (Sent, error) {
	id, err := a.call(ledgerCall{Op: "send", Chat: m.Chat.ChatID, Text: m.Text, Plain: m.Plain, Buttons: m.Buttons})
	return Sent{MessageID: id}, err
}
func (a *ledgerAdapter) Edit(ctx context.Context, chat ChatRef, id string, m Outbound) error {
	_, err := a.call(ledgerCall{Op: "edit", Chat: chat.ChatID, Text: m.Text, Plain: m.Plain, EditOf: id, Buttons: m.Buttons})
	return err
}
func (a *ledgerAdapter) Upload(ctx context.Context, chat ChatRef, f File) (Sent, error) {
	id, err := a.call(ledgerCall{Op: "upload", Chat: chat.ChatID, Text: f.Caption})
	return Sent{MessageID: id}, err
}

func (a *ledgerAdapter) call(c ledgerCall) (string, error) {
	if a.clock != nil {
		c.At = a.clock.Now()
	}
	a.mu.Lock()
	n := 0
	for _, p := range a.calls {
		if p.Chat == c.Chat {
			n++
		}
	}
	a.calls = append(a.calls, c)
	id := fmt.Sprintf("msg%d", len(a.calls))
	a.mu.Unlock()
	if a.script != nil {
		if err := a.script(c, n); err != nil {
			return "", err
		}
	}
	return id, nil
}

// chat returns the calls made to one chat, in order.
func (a *ledgerAdapter) chat(id string) []ledgerCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []ledgerCall
	for _, c := range a.calls {
		if c.Chat == id {
			out = append(out, c)
		}
	}
	return out
}

func (a *ledgerAdapter) all() []ledgerCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ledgerCall(nil), a.calls...)
}

// runSender starts a Sender and returns it with a function that stops
// it and waits for Run to return.
func runSender(t *testing.T, st *Store, a Adapter, o SenderOptions) (*Sender, func()) {
	t.Helper()
	s := NewSender(st, a, o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// outcome waits for a row to be delivered or failed.
func ledgerOutcome(t *testing.T, s *Sender, id int64) (Delivery, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := s.Wait(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("delivery %d: no outcome; state %s, last error %q", id, d.State, d.LastError)
	}
	return d, err
}

func waitDelivered(t *testing.T, s *Sender, id int64) Delivery {
	t.Helper()
	d, err := ledgerOutcome(t, s, id)
	if err != nil || d.State != DeliveryDelivered {
		t.Fatalf("delivery %d: %v (state %s)", id, err, d.State)
	}
	return d
}

func addRow(t *testing.T, s *Sender, chat, text string) int64 {
	t.Helper()
	id, err := s.Add(context.Background(), Delivery{Chat: ChatRef{ChatID: chat}, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func callTexts(calls []ledgerCall) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Text)
	}
	return out
}

func TestLedgerKeepsEachChatsOrderWhileOtherChatsGoOn(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	release := make(chan struct{})
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Chat == "a" && n == 0 {
			<-release // the first reply to a is slow
		}
		return nil
	}}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	var unblock sync.Once
	t.Cleanup(func() { unblock.Do(func() { close(release) }) }) // before the sender's cleanup, on failure too
	a1 := addRow(t, s, "a", "a1")
	a2 := addRow(t, s, "a", "a2")
	b1 := addRow(t, s, "b", "b1")
	a3 := addRow(t, s, "a", "a3")

	waitDelivered(t, s, b1)
	// a1 may not have reached the platform yet; a2 and a3 must not have.
	if got := callTexts(a.chat("a")); len(got) > 1 || (len(got) == 1 && got[0] != "a1") {
		t.Fatalf("while a1 is being sent, chat a got %q: a later reply overtook an earlier one", got)
	}
	unblock.Do(func() { close(release) })
	d := waitDelivered(t, s, a3)
	waitDelivered(t, s, a1)
	waitDelivered(t, s, a2)
	if got := callTexts(a.chat("a")); strings.Join(got, ",") != "a1,a2,a3" {
		t.Fatalf("chat a got %q", got)
	}
	if d.SentID == "" || d.Attempts != 1 || d.Recovered {
		t.Fatalf("delivered row: %+v", d)
	}
}

func TestLedgerEditsAndUploads(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Op == "edit" && c.Text == "same" {
			return &SendError{NotModified: true, Status: 400, Err: errors.New("message is not modified")}
		}
		return nil
	}}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	ctx := context.Background()
	draft := waitDelivered(t, s, addRow(t, s, "c", "dra"))
	buttons := [][]Button{{{Label: "Once", Data: "appr:1:once"}, {Label: "Deny", Data: "appr:1:deny"}}}
	id, _ := s.Add(ctx, Delivery{Chat: ChatRef{ChatID: "c"}, EditOf: draft.SentID, Text: "draft, final", Buttons: buttons})
	if d := waitDelivered(t, s, id); d.SentID != draft.SentID {
		t.Fatalf("an edit's SentID is %q, want the edited message %q", d.SentID, draft.SentID)
	}
	id, _ = s.Add(ctx, Delivery{Chat: ChatRef{ChatID: "c"}, EditOf: draft.SentID, Text: "same"})
	waitDelivered(t, s, id) // "not modified": the message holds the text already
	id, _ = s.Add(ctx, Delivery{Chat: ChatRef{ChatID: "c"}, File: &File{Path: "/tmp/out.png", Name: "out.png", Caption: "the chart"}})
	waitDelivered(t, s, id)

	calls := a.chat("c")
	if len(calls) != 4 || calls[1].Op != "edit" || calls[1].EditOf != draft.SentID || calls[1].Buttons[0][1].Data != "appr:1:deny" ||
		calls[2].Op != "edit" || calls[3].Op != "upload" || calls[3].Text != "the chart" {
		t.Fatalf("calls: %+v", calls)
	}
}

func TestLedgerWaitsOutARateLimitForThatChatOnly(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	t0 := clock.Now()
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Chat == "a" && n == 0 {
			return &SendError{RetryAfter: 30 * time.Second, Status: 429, Err: errors.New("Too Many Requests: retry after 30")}
		}
		return nil
	}}
	ctx := context.Background()
	row := func(chat, text string) int64 {
		id, err := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: chat}, Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a1, a2, b1 := row("a", "a1"), row("a", "a2"), row("b", "b1")
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	waitDelivered(t, s, b1) // another chat is not held
	clock.waitArmed(t, t0.Add(30*time.Second))
	a3 := addRow(t, s, "a", "a3")

	clock.Advance(29 * time.Second)
	waitDelivered(t, s, addRow(t, s, "b", "b2"))
	if got := a.chat("a"); len(got) != 1 {
		t.Fatalf("chat a was sent %q before its retry_after passed", callTexts(got))
	}
	rows, _ := st.Deliveries(ctx, "fake", DeliveryPending)
	if len(rows) != 3 || rows[0].ID != a1 || rows[1].ID != a2 ||
		!rows[0].NotBefore.Equal(t0.Add(30*time.Second)) || !rows[1].NotBefore.Equal(t0.Add(30*time.Second)) ||
		!strings.Contains(rows[0].LastError, "retry after") || rows[0].Attempts != 0 {
		t.Fatalf("waiting rows: %+v", rows)
	}

	clock.Advance(time.Second)
	waitDelivered(t, s, a1)
	waitDelivered(t, s, a2)
	waitDelivered(t, s, a3)
	calls := a.chat("a")
	if strings.Join(callTexts(calls), ",") != "a1,a1,a2,a3" {
		t.Fatalf("chat a got %q", callTexts(calls))
	}
	for _, c := range calls[1:] {
		if c.At.Before(t0.Add(30 * time.Second)) {
			t.Fatalf("%q sent at +%s, before the 30s retry_after", c.Text, c.At.Sub(t0))
		}
	}
}

func TestLedgerNeverRetriesAPermanentRefusal(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Chat == "blocked" {
			return &SendError{Permanent: true, Status: 403, Err: errors.New("Forbidden: bot was blocked by the user")}
		}
		return nil
	}}
	var logs ledgerLog
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	id := addRow(t, s, "blocked", "hello?")
	d, err := ledgerOutcome(t, s, id)
	if !errors.Is(err, ErrDeliveryFailed) || d.State != DeliveryFailed || !strings.Contains(d.LastError, "blocked by the user") {
		t.Fatalf("blocked chat: %v %+v", err, d)
	}
	if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, "platform=fake") ||
		!strings.Contains(l, fmt.Sprintf("delivery=%d", id)) || !strings.Contains(l, "chat=blocked") || !strings.Contains(l, "blocked by the user") {
		t.Fatalf("the failure is not logged with its context:\n%s", l)
	}
	// A later reply to the same chat is tried (and refused) on its own:
	// the first one is not tried again.
	id2 := addRow(t, s, "blocked", "still there?")
	ledgerOutcome(t, s, id2)
	clock.Advance(48 * time.Hour)
	waitDelivered(t, s, addRow(t, s, "ok", "probe"))
	if got := callTexts(a.chat("blocked")); strings.Join(got, ",") != "hello?,still there?" {
		t.Fatalf("the blocked chat was asked %q", got)
	}
	if rows, _ := st.Deliveries(context.Background(), "fake", DeliveryFailed); len(rows) != 2 {
		t.Fatalf("failed rows: %+v", rows)
	}
}

func TestLedgerSendsRefusedFormattingAgainAsPlainText(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if !c.Plain {
			return &SendError{Format: true, Status: 400, Err: errors.New("Bad Request: can't parse entities")}
		}
		return nil
	}}
	plain := func(s string) string { return strings.NewReplacer("<b>", "", "</b>", "").Replace(s) }
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After, Plain: plain})
	d := waitDelivered(t, s, addRow(t, s, "c", "<b>bold</b> claim"))
	calls := a.chat("c")
	if len(calls) != 2 || calls[0].Plain || calls[0].Text != "<b>bold</b> claim" || !calls[1].Plain || calls[1].Text != "bold claim" {
		t.Fatalf("calls: %+v", calls)
	}
	if !d.Plain || d.Text != "bold claim" {
		t.Fatalf("row: %+v", d)
	}

	// Refused also as plain text: failed, not retried again.
	a.script = func(ledgerCall, int) error {
		return &SendError{Format: true, Status: 400, Err: errors.New("Bad Request: can't parse entities")}
	}
	id := addRow(t, s, "d", "<b>x</b>")
	if _, err := ledgerOutcome(t, s, id); !errors.Is(err, ErrDeliveryFailed) {
		t.Fatalf("refused twice: %v", err)
	}
	if got := a.chat("d"); len(got) != 2 {
		t.Fatalf("calls to d: %+v", got)
	}
}

func TestLedgerRetriesTransportErrorsWithBackoffThenFails(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	t0 := clock.Now()
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Chat == "flaky" && n == 0 {
			return errors.New("dial tcp: connection refused")
		}
		if c.Chat == "down" {
			return fmt.Errorf("read tcp: connection reset by peer (try %d)", n+1)
		}
		return nil
	}}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After, Backoff: 10 * time.Second})
	// One row at a time: a timer is armed only once its failure is
	// recorded, so the clock moves only when the Sender waits.
	down := addRow(t, s, "down", "two")
	clock.waitArmed(t, t0.Add(10*time.Second))
	clock.Advance(10 * time.Second)
	clock.waitArmed(t, t0.Add(30*time.Second)) // 10s, then 20s
	clock.Advance(20 * time.Second)
	d, err := ledgerOutcome(t, s, down)
	if !errors.Is(err, ErrDeliveryFailed) || d.Attempts != 3 || !strings.Contains(d.LastError, "gave up after 3 attempts") ||
		!strings.Contains(d.LastError, "try 3") {
		t.Fatalf("down row: %v %+v", err, d)
	}
	var at []time.Duration
	for _, c := range a.chat("down") {
		at = append(at, c.At.Sub(t0))
	}
	if len(at) != 3 || at[0] != 0 || at[1] != 10*time.Second || at[2] != 30*time.Second {
		t.Fatalf("tries to the failing chat at %v, want 0s 10s 30s", at)
	}

	t1 := clock.Now()
	flaky := addRow(t, s, "flaky", "one")
	clock.waitArmed(t, t1.Add(10*time.Second))
	clock.Advance(10 * time.Second)
	if d := waitDelivered(t, s, flaky); d.Attempts != 2 || d.LastError == "" {
		t.Fatalf("flaky row: %+v", d)
	}
}

func TestLedgerFailsStaleRowsInsteadOfSendingThem(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	ctx := context.Background()
	old, _ := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "c"}, Text: "yesterday's answer"})
	caught, _ := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "c"}, Text: "yesterday's draft"})
	if err := st.markSending(ctx, caught); err != nil {
		t.Fatal(err)
	}
	clock.Advance(25 * time.Hour)
	a := &ledgerAdapter{clock: clock}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	for _, id := range []int64{old, caught} {
		d, err := ledgerOutcome(t, s, id)
		if !errors.Is(err, ErrDeliveryFailed) || !strings.Contains(d.LastError, "stale") {
			t.Fatalf("row %d: %v %+v", id, err, d)
		}
	}
	waitDelivered(t, s, addRow(t, s, "c", "today's answer"))
	if got := callTexts(a.all()); len(got) != 1 || got[0] != "today's answer" {
		t.Fatalf("sent %q", got)
	}
}

func TestLedgerPrunesFinishedRowsAfterSevenDays(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		if c.Chat == "gone" {
			return &SendError{Permanent: true, Status: 400, Err: errors.New("Bad Request: chat not found")}
		}
		return nil
	}}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	waitDelivered(t, s, addRow(t, s, "c", "old"))
	ledgerOutcome(t, s, addRow(t, s, "gone", "old failure"))
	clock.Advance(6 * 24 * time.Hour)
	waitDelivered(t, s, addRow(t, s, "c", "recent"))
	clock.Advance(2 * 24 * time.Hour)
	waitDelivered(t, s, addRow(t, s, "c", "new"))
	rows, err := st.Deliveries(context.Background(), "")
	if err != nil || len(rows) != 2 || rows[0].Text != "recent" || rows[1].Text != "new" {
		t.Fatalf("rows after eight days: %+v %v", rows, err)
	}
}

// A crash caught an upload and an edit mid-send: the upload's caption
// says it is recovered; the edit is made again as it was (the message
// shows the same text either way).
func TestLedgerMarksARecoveredUploadNotARecoveredEdit(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	path := filepath.Join(t.TempDir(), "gateway.db")
	st := openTestStore(t, path, clock)
	up, _ := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "c"}, File: &File{Path: "/tmp/a.png", Caption: "the chart"}})
	ed, _ := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "d"}, EditOf: "msg9", Text: "final answer"})
	for _, id := range []int64{up, ed} {
		if err := st.markSending(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	st = openTestStore(t, path, clock)
	a := &ledgerAdapter{clock: clock}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After})
	waitDelivered(t, s, up)
	waitDelivered(t, s, ed)
	if got := a.chat("c"); len(got) != 1 || got[0].Op != "upload" || got[0].Text != RecoveredMark+"the chart" {
		t.Fatalf("recovered upload: %+v", got)
	}
	if got := a.chat("d"); len(got) != 1 || got[0].Op != "edit" || got[0].EditOf != "msg9" || got[0].Text != "final answer" {
		t.Fatalf("recovered edit: %+v", got)
	}
}

// ledgerLog is a log written from the Sender's goroutines.
type ledgerLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *ledgerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *ledgerLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Stopping the Sender (SIGTERM) lets the send in flight finish and
// records it: no row is left in sending by a clean stop.
func TestLedgerStopFinishesTheSendInFlight(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	started, release := make(chan struct{}), make(chan struct{})
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		close(started)
		<-release
		return nil
	}}
	s, stop := runSender(t, st, a, SenderOptions{After: clock.After})
	var unblock sync.Once
	t.Cleanup(func() { unblock.Do(func() { close(release) }) })
	id := addRow(t, s, "c", "slow")
	<-started
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	for range 10000 { // a Run that does not wait returns within these yields
		select {
		case <-stopped:
			t.Fatal("Run returned with a send in flight")
		default:
			runtime.Gosched()
		}
	}
	unblock.Do(func() { close(release) })
	<-stopped
	rows, err := st.Deliveries(context.Background(), "fake")
	if err != nil || len(rows) != 1 || rows[0].ID != id || rows[0].State != DeliveryDelivered || rows[0].SentID == "" {
		t.Fatalf("after the stop: %+v %v", rows, err)
	}
}

// ledgerCrashEnv names the database a child process sends through until it is
// killed.
const ledgerCrashEnv = "HERMES_TEST_LEDGER_CRASH_DB"

// stuckAdapter tells its parent when a send starts, then never returns.
type stuckAdapter struct{ ledgerAdapter }

func (a *stuckAdapter) Send(ctx context.Context, m Outbound) (Sent, error) {
	fmt.Printf("sending %s\n", m.Text)
	select {}
}

// The gateway is SIGKILLed between "sending" and "delivered": on restart
// the reply is sent once, marked recovered, and a second restart sends
// nothing more.
func TestLedgerRecoversAReplyCaughtMidSendByASIGKILL(t *testing.T) {
	if path := os.Getenv(ledgerCrashEnv); path != "" {
		st, err := OpenStore(path, nil)
		if err != nil {
			panic(err)
		}
		s := NewSender(st, &stuckAdapter{}, SenderOptions{})
		if _, err := s.Add(context.Background(), Delivery{Chat: ChatRef{ChatID: "c"}, Text: "the answer is 42"}); err != nil {
			panic(err)
		}
		s.Run(context.Background())
		return
	}
	path := filepath.Join(t.TempDir(), "gateway.db")
	child := exec.Command(os.Args[0], "-test.run=^TestLedgerRecoversAReplyCaughtMidSendByASIGKILL$")
	child.Env = append(os.Environ(), ledgerCrashEnv+"="+path)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "sending ") {
				line <- sc.Text()
				return
			}
		}
		close(line)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			child.Wait()
			t.Fatal("the child ended before sending")
		}
		if l != "sending the answer is 42" {
			t.Fatalf("child: %q", l)
		}
	case <-time.After(30 * time.Second):
		child.Process.Kill()
		t.Fatal("the child never sent")
	}
	if err := child.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	child.Wait()

	clock := newStoreClock()
	clock.now = time.Now()
	st := openTestStore(t, path, clock)
	rows, err := st.Deliveries(context.Background(), "fake")
	if err != nil || len(rows) != 1 || rows[0].State != DeliverySending {
		t.Fatalf("after the kill: %+v %v", rows, err)
	}
	id := rows[0].ID
	a := &ledgerAdapter{clock: clock}
	s, stop := runSender(t, st, a, SenderOptions{After: clock.After})
	d := waitDelivered(t, s, id)
	if got := callTexts(a.all()); len(got) != 1 || got[0] != RecoveredMark+"the answer is 42" {
		t.Fatalf("after the restart the platform got %q", got)
	}
	if !d.Recovered || d.Text != "the answer is 42" {
		t.Fatalf("recovered row: %+v", d)
	}
	stop()
	st.Close()

	st = openTestStore(t, path, clock)
	a = &ledgerAdapter{clock: clock}
	s, _ = runSender(t, st, a, SenderOptions{After: clock.After})
	// A reply to the same chat is sent after anything owed before it, so
	// once it is delivered nothing older can still be on its way.
	waitDelivered(t, s, addRow(t, s, "c", "probe"))
	if got := callTexts(a.all()); len(got) != 1 || got[0] != "probe" {
		t.Fatalf("a second restart sent %q", got)
	}
}

func TestLedgerWaitReportsAnUnknownRow(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	s := NewSender(st, &ledgerAdapter{}, SenderOptions{})
	if _, err := s.Wait(context.Background(), 12345); !errors.Is(err, ErrDeliveryNotFound) {
		t.Fatalf("Wait of a missing row: %v", err)
	}
	if _, err := s.Add(context.Background(), Delivery{Platform: "other", Chat: ChatRef{ChatID: "c"}}); err == nil {
		t.Fatal("a sender took another platform's row")
	}
}

// A row another process is sending is left to it, even by a Sender that
// starts meanwhile; once that process dies, a polling Sender takes it up
// while it runs, once, marked recovered.
func TestLedgerLeavesARowAnotherLiveProcessIsSending(t *testing.T) {
	other := exec.Command("sleep", "600")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })

	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	ctx := context.Background()
	id, err := st.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "c"}, Text: "cron answer"})
	if err != nil {
		t.Fatal(err)
	}
	// What the other process's markSending wrote.
	if _, err := st.w.ExecContext(ctx, `UPDATE deliveries SET state = 'sending', sender = ?, attempts = 1 WHERE id = ?`, other.Process.Pid, id); err != nil {
		t.Fatal(err)
	}
	a := &ledgerAdapter{clock: clock}
	s, _ := runSender(t, st, a, SenderOptions{After: clock.After, Poll: time.Second})
	// A later reply to another chat goes out: the Sender has started and
	// passed the row by.
	waitDelivered(t, s, addRow(t, s, "d", "probe"))
	clock.Advance(time.Second)
	waitDelivered(t, s, addRow(t, s, "d", "probe 2"))
	if got := a.chat("c"); len(got) != 0 {
		t.Fatalf("a row a live process is sending was sent again: %+v", got)
	}

	other.Process.Kill()
	other.Wait()
	stop := make(chan struct{})
	go func() { // the Sender's next looks, whenever it arms them
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				clock.Advance(time.Second)
			}
		}
	}()
	d := waitDelivered(t, s, id)
	close(stop)
	if got := callTexts(a.chat("c")); len(got) != 1 || got[0] != RecoveredMark+"cron answer" || !d.Recovered {
		t.Fatalf("after the other process died: %q %+v", got, d)
	}
}
