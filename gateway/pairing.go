package gateway

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Pairing: a person the allowlists do not name gets one reply holding a
// code; the owner approves it with `hermes pairing approve PLATFORM CODE`
// and from then on the person is allowed on that platform.
const (
	// PairingAlphabet is what codes are made of: no 0/O or 1/I to
	// confuse.
	PairingAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	// PairingCodeLen is a code's length (shown as XXXX-XXXX).
	PairingCodeLen = 8
	// PairingTTL is how long a code can be approved.
	PairingTTL = time.Hour
	// MaxPendingPairings is how many codes may wait per platform.
	MaxPendingPairings = 3
	// MaxPairingFailures wrong codes in a row lock a platform's approvals
	// for PairingLockout.
	MaxPairingFailures = 5
	PairingLockout     = time.Hour
)

// Pairing errors.
var (
	// ErrPairingFull: the platform already has MaxPendingPairings codes
	// waiting; the requester gets no code.
	ErrPairingFull = errors.New("too many pairing requests are waiting for approval")
	// ErrPairingLocked: approvals for the platform are locked after
	// MaxPairingFailures wrong codes (a *PairingLockedError says until
	// when).
	ErrPairingLocked = errors.New("pairing approvals are locked after too many wrong codes")
	// ErrPairingCode: no pending request has the code (wrong, or expired).
	ErrPairingCode = errors.New("no pending pairing request has this code")
	// ErrAlreadyPaired: the user is approved already.
	ErrAlreadyPaired = errors.New("user is already paired")
	// ErrNotPaired: revoking a user who is neither approved nor waiting.
	ErrNotPaired = errors.New("user is not paired")
)

// PairingLockedError is ErrPairingLocked with the platform and the end
// of the lockout.
type PairingLockedError struct {
	Platform string
	Until    time.Time
}

func (e *PairingLockedError) Error() string {
	return fmt.Sprintf("approvals on %s are locked until %s after %d wrong codes in a row", e.Platform, e.Until.Format(time.RFC3339), MaxPairingFailures)
}

func (e *PairingLockedError) Is(target error) bool { return target == ErrPairingLocked }

// Pairings is what `hermes pairing list` shows.
type Pairings struct {
	Pending  []PendingPairing `json:"pending"`
	Approved []PairedUser     `json:"approved"`
}

// PendingPairing is a code waiting for the owner's approval.
type PendingPairing struct {
	Platform  string    `json:"platform"`
	Code      string    `json:"code"`
	UserID    string    `json:"user_id"`
	UserName  string    `json:"user_name"`
	ExpiresAt time.Time `json:"expires_at"`
}

// PairedUser is a person the owner approved.
type PairedUser struct {
	Platform   string    `json:"platform"`
	UserID     string    `json:"user_id"`
	UserName   string    `json:"user_name"`
	ApprovedAt time.Time `json:"approved_at"`
}

// FormatPairingCode shows a code as XXXX-XXXX.
func FormatPairingCode(code string) string {
	if len(code) != PairingCodeLen {
		return code
	}
	return code[:4] + "-" + code[4:]
}

// normalizePairingCode accepts a code typed in any case, with or without its
// dash (and spaces).
func normalizePairingCode(code string) string {
	return strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(code)))
}

func newPairingCode() (string, error) {
	var b [PairingCodeLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	for i := range b {
		// 32 letters: the low five bits of a random byte pick one without
		// bias.
		b[i] = PairingAlphabet[b[i]%byte(len(PairingAlphabet))]
	}
	return string(b[:]), nil
}

// RequestPairing gives an unknown user a pairing code. A user who asked
// within the hour gets the same code again with fresh false, so the
// gateway, which replies only when fresh, answers a person once. When
// MaxPendingPairings codes already wait on the platform it returns
// ErrPairingFull and no code; for an approved user, ErrAlreadyPaired.
func (s *Store) RequestPairing(ctx context.Context, platform, userID, userName string) (code string, fresh bool, err error) {
	now := s.now()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM pairing_requests WHERE expires_at <= ?`, now.UnixNano()); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM paired_users WHERE platform = ? AND user_id = ?`, platform, userID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrAlreadyPaired
		}
		err := tx.QueryRowContext(ctx, `SELECT code FROM pairing_requests WHERE platform = ? AND user_id = ?`, platform, userID).Scan(&code)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pairing_requests WHERE platform = ?`, platform).Scan(&n); err != nil {
			return err
		}
		if n >= MaxPendingPairings {
			return ErrPairingFull
		}
		for range 10 { // a code already waiting on the platform is drawn again
			if code, err = newPairingCode(); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO pairing_requests (platform, user_id, user_name, code, requested_at, expires_at)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				platform, userID, userName, code, now.UnixNano(), now.Add(PairingTTL).UnixNano())
			if err != nil {
				return err
			}
			if added, err := res.RowsAffected(); err != nil || added == 1 {
				fresh = true
				return err
			}
		}
		return errors.New("no free pairing code")
	})
	if err != nil {
		return "", false, fmt.Errorf("gateway store: pairing request of %s user %s: %w", platform, userID, err)
	}
	return code, fresh, nil
}

// ApprovePairing approves the user whose pending request on platform has
// code (any case, dash optional) and returns their id. A wrong or expired
// code is ErrPairingCode and counts as a failure; after
// MaxPairingFailures in a row the platform's approvals are locked for
// PairingLockout (ErrPairingLocked, even for a right code).
func (s *Store) ApprovePairing(ctx context.Context, platform, code string) (userID string, err error) {
	now := s.now()
	code = normalizePairingCode(code)
	var refused error
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var failures int
		var lockedUntil int64
		err := tx.QueryRowContext(ctx, `SELECT failures, locked_until FROM pairing_lockouts WHERE platform = ?`, platform).Scan(&failures, &lockedUntil)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if until := time.Unix(0, lockedUntil); lockedUntil != 0 && now.Before(until) {
			refused = &PairingLockedError{Platform: platform, Until: until}
			return nil
		}
		var userName string
		err = tx.QueryRowContext(ctx, `DELETE FROM pairing_requests WHERE platform = ? AND code = ? AND expires_at > ?
			RETURNING user_id, user_name`, platform, code, now.UnixNano()).Scan(&userID, &userName)
		if errors.Is(err, sql.ErrNoRows) {
			// A wrong code is counted, and the count committed.
			failures, lockedUntil = failures+1, 0
			refused = fmt.Errorf("%w on %s: %s (wrong, or more than an hour old)", ErrPairingCode, platform, FormatPairingCode(code))
			if failures >= MaxPairingFailures {
				until := now.Add(PairingLockout)
				failures, lockedUntil = 0, until.UnixNano()
				refused = fmt.Errorf("%w; %w", refused, &PairingLockedError{Platform: platform, Until: until})
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO pairing_lockouts (platform, failures, locked_until) VALUES (?, ?, ?)
				ON CONFLICT (platform) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`,
				platform, failures, lockedUntil)
			return err
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO paired_users (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name, approved_at = excluded.approved_at`,
			platform, userID, userName, now.UnixNano()); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM pairing_lockouts WHERE platform = ?`, platform)
		return err
	})
	if err == nil {
		err = refused
	}
	if err != nil {
		return "", fmt.Errorf("gateway store: approve pairing: %w", err)
	}
	return userID, nil
}

// RevokePairing removes an approved user (and any code they wait with);
// ErrNotPaired when there was neither.
func (s *Store) RevokePairing(ctx context.Context, platform, userID string) error {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{
			`DELETE FROM paired_users WHERE platform = ? AND user_id = ?`,
			`DELETE FROM pairing_requests WHERE platform = ? AND user_id = ?`,
		} {
			res, err := tx.ExecContext(ctx, q, platform, userID)
			if err != nil {
				return err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += k
		}
		return nil
	})
	if err == nil && n == 0 {
		err = ErrNotPaired
	}
	if err != nil {
		return fmt.Errorf("gateway store: revoke %s user %s: %w", platform, userID, err)
	}
	return nil
}

// Paired reports whether the owner approved the user on platform.
func (s *Store) Paired(ctx context.Context, platform, userID string) (bool, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM paired_users WHERE platform = ? AND user_id = ?`, platform, userID).Scan(&n); err != nil {
		return false, fmt.Errorf("gateway store: is %s user %s paired: %w", platform, userID, err)
	}
	return n > 0, nil
}

// Pairings returns the codes waiting (not expired) and the approved
// users, by platform, oldest first.
func (s *Store) Pairings(ctx context.Context) (Pairings, error) {
	p := Pairings{Pending: []PendingPairing{}, Approved: []PairedUser{}}
	rows, err := s.r.QueryContext(ctx, `SELECT platform, code, user_id, user_name, expires_at FROM pairing_requests
		WHERE expires_at > ? ORDER BY platform, requested_at, user_id`, s.now().UnixNano())
	if err != nil {
		return p, fmt.Errorf("gateway store: pairings: %w", err)
	}
	for rows.Next() {
		var r PendingPairing
		var exp int64
		if err := rows.Scan(&r.Platform, &r.Code, &r.UserID, &r.UserName, &exp); err != nil {
			rows.Close()
			return p, fmt.Errorf("gateway store: pairings: %w", err)
		}
		r.ExpiresAt = time.Unix(0, exp).UTC()
		p.Pending = append(p.Pending, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("gateway store: pairings: %w", err)
	}
	rows, err = s.r.QueryContext(ctx, `SELECT platform, user_id, user_name, approved_at FROM paired_users ORDER BY platform, approved_at, user_id`)
	if err != nil {
		return p, fmt.Errorf("gateway store: pairings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u PairedUser
		var at int64
		if err := rows.Scan(&u.Platform, &u.UserID, &u.UserName, &at); err != nil {
			return p, fmt.Errorf("gateway store: pairings: %w", err)
		}
		u.ApprovedAt = time.Unix(0, at).UTC()
		p.Approved = append(p.Approved, u)
	}
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("gateway store: pairings: %w", err)
	}
	return p, nil
}
