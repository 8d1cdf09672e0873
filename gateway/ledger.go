package gateway

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Delivery states. A reply is a pending row before anything is sent; the
// Sender marks it sending (committed) before it calls the platform and
// delivered once the platform answered, so a row found in sending at
// start-up is one whose fate is unknown: the process died in between.
const (
	DeliveryPending   = "pending"
	DeliverySending   = "sending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one reply the gateway owes a chat: a row of the delivery
// ledger, written before it is sent.
type Delivery struct {
	ID         int64   `json:"id"`
	Platform   string  `json:"platform"`
	Chat       ChatRef `json:"chat"`
	SessionKey string  `json:"session_key,omitempty"`
	ReplyTo    string  `json:"reply_to,omitempty"`
	Text       string  `json:"text,omitempty"`
	Plain      bool    `json:"plain,omitempty"`
	// EditOf is the id of a message to edit instead of sending a new one
	// (a streamed draft, an approval card once answered).
	EditOf  string     `json:"edit_of,omitempty"`
	Buttons [][]Button `json:"buttons,omitempty"`
	// File, when set, is uploaded (with File.Caption) instead of sending
	// Text.
	File  *File  `json:"file,omitempty"`
	State string `json:"state"`
	// Attempts counts the times the row was handed to the platform, but
	// for tries the platform rate limited.
	Attempts int `json:"attempts"`
	// NotBefore is when the row may be tried again (a rate limit, a
	// transport error's backoff).
	NotBefore time.Time `json:"not_before,omitzero"`
	// Recovered says the row was found mid-send after a crash: it is sent
	// again, once, with RecoveredMark before its text.
	Recovered bool      `json:"recovered,omitempty"`
	LastError string    `json:"last_error,omitempty"`
	SentID    string    `json:"sent_id,omitempty"`
	Created   time.Time `json:"created"`
}

// ErrDeliveryNotFound: no ledger row has the id.
var ErrDeliveryNotFound = errors.New("delivery not found")

// AddDelivery writes d to the ledger as a pending row (State, Attempts,
// SentID and LastError are ignored) and returns its id. The Sender of d's
// platform sends it; Sender.Add also wakes the Sender.
func (s *Store) AddDelivery(ctx context.Context, d Delivery) (int64, error) {
	if d.Platform == "" || d.Chat.ChatID == "" {
		return 0, fmt.Errorf("gateway store: add delivery: a delivery needs a platform and a chat (got %q, %q)", d.Platform, d.Chat.ChatID)
	}
	var buttons, file string
	if len(d.Buttons) > 0 {
		b, err := json.Marshal(d.Buttons)
		if err != nil {
			return 0, fmt.Errorf("gateway store: add delivery: buttons: %w", err)
		}
		buttons = string(b)
	}
	if d.File != nil {
		b, err := json.Marshal(d.File)
		if err != nil {
			return 0, fmt.Errorf("gateway store: add delivery: file: %w", err)
		}
		file = string(b)
	}
	now := s.now().UnixNano()
	var id int64
	err := s.w.QueryRowContext(ctx, `INSERT INTO deliveries
		(platform, chat_id, thread_id, session_key, reply_to, text, plain, edit_of, buttons, file,
		 state, not_before, recovered, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?) RETURNING id`,
		d.Platform, d.Chat.ChatID, d.Chat.ThreadID, d.SessionKey, d.ReplyTo, d.Text, d.Plain, d.EditOf, buttons, file,
		storeNanos(d.NotBefore), d.Recovered, now, now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("gateway store: add delivery to %s %s: %w", d.Platform, d.Chat.ChatID, err)
	}
	return id, nil
}

const deliveryColumns = `id, platform, chat_id, thread_id, session_key, reply_to, text, plain, edit_of, buttons, file,
	state, attempts, not_before, recovered, last_error, sent_id, created_at`

type deliveryScanner interface{ Scan(dest ...any) error }

func scanDelivery(r deliveryScanner) (Delivery, error) {
	var d Delivery
	var buttons, file string
	var notBefore, created int64
	if err := r.Scan(&d.ID, &d.Platform, &d.Chat.ChatID, &d.Chat.ThreadID, &d.SessionKey, &d.ReplyTo, &d.Text, &d.Plain,
		&d.EditOf, &buttons, &file, &d.State, &d.Attempts, &notBefore, &d.Recovered, &d.LastError, &d.SentID, &created); err != nil {
		return d, err
	}
	d.NotBefore, d.Created = storeTime(notBefore), storeTime(created)
	if buttons != "" {
		if err := json.Unmarshal([]byte(buttons), &d.Buttons); err != nil {
			return d, fmt.Errorf("delivery %d: buttons: %w", d.ID, err)
		}
	}
	if file != "" {
		d.File = new(File)
		if err := json.Unmarshal([]byte(file), d.File); err != nil {
			return d, fmt.Errorf("delivery %d: file: %w", d.ID, err)
		}
	}
	return d, nil
}

// Deliveries returns the ledger's rows for platform ("" for every
// platform) in the given states (none: every state), oldest first.
// Finished rows are kept seven days.
func (s *Store) Deliveries(ctx context.Context, platform string, states ...string) ([]Delivery, error) {
	q := `SELECT ` + deliveryColumns + ` FROM deliveries WHERE (? = '' OR platform = ?)`
	args := []any{platform, platform}
	if len(states) > 0 {
		q += ` AND state IN (?` + strings.Repeat(", ?", len(states)-1) + `)`
		for _, st := range states {
			args = append(args, st)
		}
	}
	return s.queryDeliveries(ctx, s.r, q+` ORDER BY id`, args...)
}

type deliveryQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *Store) queryDeliveries(ctx context.Context, q deliveryQueryer, query string, args ...any) ([]Delivery, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("gateway store: deliveries: %w", err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("gateway store: deliveries: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("gateway store: deliveries: %w", err)
	}
	return out, nil
}

// delivery reads one row.
func (s *Store) delivery(ctx context.Context, id int64) (Delivery, error) {
	d, err := scanDelivery(s.r.QueryRowContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("gateway store: delivery %d: %w", id, ErrDeliveryNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("gateway store: delivery %d: %w", id, err)
	}
	return d, nil
}

// dueDeliveries returns up to limit pending rows of platform, oldest
// first, whatever their NotBefore.
func (s *Store) dueDeliveries(ctx context.Context, platform string, after int64, limit int) ([]Delivery, error) {
	return s.queryDeliveries(ctx, s.r, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE platform = ? AND state = 'pending' AND id > ? ORDER BY id LIMIT ?`, platform, after, limit)
}

// orphanAge is how long a row may stay in sending before any Sender
// takes it for one a crash left behind, whoever wrote it: no send lasts
// that long (SenderOptions.SendTimeout).
const orphanAge = 30 * time.Minute

// recoverDeliveries makes the rows of platform that a dead process left
// in sending pending again, marked recovered; rows (sending or pending)
// older than stale are failed instead. A row's sender is dead when its
// process no longer runs, is this process at start (its previous life,
// as in a container where the gateway is always pid 1), or has held it
// past orphanAge. It returns the rows it changed, as they now are.
func (s *Store) recoverDeliveries(ctx context.Context, platform string, stale time.Duration, atStart bool) ([]Delivery, error) {
	t := s.now()
	now, staleBefore, orphanBefore := t.UnixNano(), t.Add(-stale), t.Add(-orphanAge).UnixNano()
	var changed []Delivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		stale, err := s.queryDeliveries(ctx, tx, `UPDATE deliveries SET state = 'failed', updated_at = ?,
			last_error = 'stale: not delivered within ' || ? || ' of being written'
			WHERE platform = ? AND state IN ('pending', 'sending') AND created_at < ?
			RETURNING `+deliveryColumns, now, staleAge(stale), platform, staleBefore.UnixNano())
		if err != nil {
			return err
		}
		changed = stale
		rows, err := tx.QueryContext(ctx, `SELECT id, sender, updated_at FROM deliveries WHERE platform = ? AND state = 'sending'`, platform)
		if err != nil {
			return err
		}
		var dead []int64
		for rows.Next() {
			var id, updated int64
			var sender int
			if err := rows.Scan(&id, &sender, &updated); err != nil {
				rows.Close()
				return err
			}
			switch {
			case updated < orphanBefore,
				atStart && (sender == s.pid || sender == 0),
				sender != s.pid && sender != 0 && !s.alive(sender):
				dead = append(dead, id)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for _, id := range dead {
			d, err := s.queryDeliveries(ctx, tx, `UPDATE deliveries SET state = 'pending', recovered = 1, sender = 0, updated_at = ?
				WHERE id = ? RETURNING `+deliveryColumns, now, id)
			if err != nil {
				return err
			}
			changed = append(changed, d...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gateway store: recover deliveries of %s: %w", platform, err)
	}
	return changed, nil
}

// processAlive reports whether process pid still runs (one of another
// user counts: it exists).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func staleAge(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return d.String()
}

// markSending records that the row is being handed to the platform, and
// counts the attempt. It fails unless the row was pending.
func (s *Store) markSending(ctx context.Context, id int64) error {
	return s.updateDelivery(ctx, id, `UPDATE deliveries SET state = 'sending', sender = ?, attempts = attempts + 1, updated_at = ?
		WHERE id = ? AND state = 'pending'`, s.pid, s.now().UnixNano(), id)
}

// markDelivered records the platform's id for what was sent.
func (s *Store) markDelivered(ctx context.Context, id int64, sentID string) error {
	return s.updateDelivery(ctx, id, `UPDATE deliveries SET state = 'delivered', sent_id = ?, not_before = 0, updated_at = ?
		WHERE id = ?`, sentID, s.now().UnixNano(), id)
}

// markFailed records that the row will never be sent, and why.
func (s *Store) markFailed(ctx context.Context, id int64, why string) error {
	return s.updateDelivery(ctx, id, `UPDATE deliveries SET state = 'failed', last_error = ?, updated_at = ?
		WHERE id = ?`, why, s.now().UnixNano(), id)
}

// markRetry puts the row back to pending, to be tried at notBefore.
func (s *Store) markRetry(ctx context.Context, id int64, notBefore time.Time, why string) error {
	return s.updateDelivery(ctx, id, `UPDATE deliveries SET state = 'pending', not_before = ?, last_error = ?, updated_at = ?
		WHERE id = ?`, storeNanos(notBefore), why, s.now().UnixNano(), id)
}

// markPlain puts the row back to pending at once, to be sent as the plain
// text given.
func (s *Store) markPlain(ctx context.Context, id int64, text, why string) error {
	return s.updateDelivery(ctx, id, `UPDATE deliveries SET state = 'pending', text = ?, plain = 1, not_before = 0, last_error = ?, updated_at = ?
		WHERE id = ?`, text, why, s.now().UnixNano(), id)
}

// markRateLimited puts the row back to pending until until, without
// counting the try, and holds every later pending row of the same chat
// until then too: the platform's wait applies to the chat, and a later
// reply must not overtake this one.
func (s *Store) markRateLimited(ctx context.Context, d Delivery, until time.Time, why string) error {
	now := s.now().UnixNano()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = 'pending', attempts = max(attempts - 1, 0),
			not_before = ?, last_error = ?, updated_at = ? WHERE id = ?`, until.UnixNano(), why, now, d.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE deliveries SET not_before = max(not_before, ?), updated_at = ?
			WHERE platform = ? AND chat_id = ? AND state = 'pending' AND id > ?`,
			until.UnixNano(), now, d.Platform, d.Chat.ChatID, d.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway store: delivery %d: %w", d.ID, err)
	}
	return nil
}

func (s *Store) updateDelivery(ctx context.Context, id int64, query string, args ...any) error {
	res, err := s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("gateway store: delivery %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("gateway store: delivery %d: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("gateway store: delivery %d: %w (or not in the expected state)", id, ErrDeliveryNotFound)
	}
	return nil
}
