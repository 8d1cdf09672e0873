package gateway

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPairingCodesAreEightUnambiguousCharacters(t *testing.T) {
	seen := map[byte]bool{}
	for range 2000 {
		code, err := newPairingCode()
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != 8 {
			t.Fatalf("code %q is %d long", code, len(code))
		}
		for i := range len(code) {
			if strings.IndexByte(PairingAlphabet, code[i]) < 0 || strings.ContainsRune("0O1I", rune(code[i])) {
				t.Fatalf("code %q holds %q", code, code[i])
			}
			seen[code[i]] = true
		}
	}
	if len(seen) != len(PairingAlphabet) || strings.ContainsAny(PairingAlphabet, "0O1I") {
		t.Fatalf("%d of the alphabet's %d characters drawn", len(seen), len(PairingAlphabet))
	}
	if got := FormatPairingCode("ABCDEFGH"); got != "ABCD-EFGH" {
		t.Fatalf("formatted: %q", got)
	}
}

func TestPairingGivesAUserOneCodeAnHour(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	code, fresh, err := st.RequestPairing(ctx, "telegram", "7", "Ann")
	if err != nil || !fresh || len(code) != 8 {
		t.Fatalf("first request: %q %v %v", code, fresh, err)
	}
	clock.Advance(59 * time.Minute)
	again, fresh, err := st.RequestPairing(ctx, "telegram", "7", "Ann")
	if err != nil || fresh || again != code {
		t.Fatalf("asking again within the hour: %q fresh %v %v, want %q and not fresh", again, fresh, err, code)
	}
	clock.Advance(time.Minute)
	if _, err := st.ApprovePairing(ctx, "telegram", code); !errors.Is(err, ErrPairingCode) {
		t.Fatalf("approving an expired code: %v", err)
	}
	if p, _ := st.Pairings(ctx); len(p.Pending) != 0 {
		t.Fatalf("an expired code is listed: %+v", p.Pending)
	}
	next, fresh, err := st.RequestPairing(ctx, "telegram", "7", "Ann")
	if err != nil || !fresh || next == code {
		t.Fatalf("asking after the hour: %q fresh %v %v (old code %q)", next, fresh, err, code)
	}
}

func TestPairingAllowsThreePendingCodesPerPlatform(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	var codes []string
	for _, u := range []string{"1", "2", "3"} {
		code, fresh, err := st.RequestPairing(ctx, "telegram", u, "user "+u)
		if err != nil || !fresh {
			t.Fatalf("user %s: %v", u, err)
		}
		codes = append(codes, code)
		clock.Advance(time.Minute)
	}
	code, fresh, err := st.RequestPairing(ctx, "telegram", "4", "user 4")
	if !errors.Is(err, ErrPairingFull) || fresh || code != "" {
		t.Fatalf("a fourth requester: %q %v %v", code, fresh, err)
	}
	if _, fresh, err := st.RequestPairing(ctx, "slack", "4", "user 4"); err != nil || !fresh {
		t.Fatalf("another platform is full too: %v", err)
	}
	if again, _, err := st.RequestPairing(ctx, "telegram", "2", "user 2"); err != nil || again != codes[1] {
		t.Fatalf("a waiting user asking again while full: %q %v", again, err)
	}
	if _, err := st.ApprovePairing(ctx, "telegram", codes[0]); err != nil {
		t.Fatal(err)
	}
	if _, fresh, err := st.RequestPairing(ctx, "telegram", "4", "user 4"); err != nil || !fresh {
		t.Fatalf("once a slot is free: %v", err)
	}
}

func TestApprovingACodePairsItsUser(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	path := filepath.Join(t.TempDir(), "gateway.db")
	st := openTestStore(t, path, clock)
	code, _, _ := st.RequestPairing(ctx, "telegram", "7", "Ann")
	if ok, _ := st.Paired(ctx, "telegram", "7"); ok {
		t.Fatal("paired before approval")
	}
	p, err := st.Pairings(ctx)
	if err != nil || len(p.Pending) != 1 || len(p.Approved) != 0 {
		t.Fatalf("pairings: %+v %v", p, err)
	}
	if w := p.Pending[0]; w.Platform != "telegram" || w.Code != code || w.UserID != "7" || w.UserName != "Ann" || !w.ExpiresAt.Equal(clock.Now().Add(time.Hour)) {
		t.Fatalf("pending: %+v", w)
	}
	if _, err := st.ApprovePairing(ctx, "slack", code); !errors.Is(err, ErrPairingCode) {
		t.Fatalf("the code approved on another platform: %v", err)
	}
	typed := strings.ToLower(FormatPairingCode(code)) // as a person may type it
	user, err := st.ApprovePairing(ctx, "telegram", typed)
	if err != nil || user != "7" {
		t.Fatalf("approve %q: %q %v", typed, user, err)
	}
	if _, err := st.ApprovePairing(ctx, "telegram", code); !errors.Is(err, ErrPairingCode) {
		t.Fatalf("a code approved twice: %v", err)
	}
	st.Close()
	st = openTestStore(t, path, clock)
	if ok, err := st.Paired(ctx, "telegram", "7"); !ok || err != nil {
		t.Fatalf("paired after a reopen: %v %v", ok, err)
	}
	if ok, _ := st.Paired(ctx, "slack", "7"); ok {
		t.Fatal("paired on another platform")
	}
	if _, _, err := st.RequestPairing(ctx, "telegram", "7", "Ann"); !errors.Is(err, ErrAlreadyPaired) {
		t.Fatalf("a paired user asking for a code: %v", err)
	}
	p, _ = st.Pairings(ctx)
	if len(p.Pending) != 0 || len(p.Approved) != 1 || p.Approved[0].UserID != "7" || p.Approved[0].UserName != "Ann" || !p.Approved[0].ApprovedAt.Equal(clock.Now()) {
		t.Fatalf("pairings after approval: %+v", p)
	}
}

func TestFiveWrongCodesLockAPlatformsApprovalsForAnHour(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	code, _, _ := st.RequestPairing(ctx, "telegram", "7", "Ann")
	slackCode, _, _ := st.RequestPairing(ctx, "slack", "U7", "Ann")
	wrong := "ZZZZZZZZ"
	if wrong == code {
		wrong = "YYYYYYYY"
	}
	for i := 1; i <= 5; i++ {
		_, err := st.ApprovePairing(ctx, "telegram", wrong)
		if !errors.Is(err, ErrPairingCode) {
			t.Fatalf("wrong code %d: %v", i, err)
		}
		if locked := errors.Is(err, ErrPairingLocked); locked != (i == 5) {
			t.Fatalf("wrong code %d: locked %v: %v", i, locked, err)
		}
	}
	_, err := st.ApprovePairing(ctx, "telegram", code)
	var locked *PairingLockedError
	if !errors.Is(err, ErrPairingLocked) || !errors.As(err, &locked) || locked.Platform != "telegram" || !locked.Until.Equal(clock.Now().Add(time.Hour)) {
		t.Fatalf("the right code while locked: %v", err)
	}
	if ok, _ := st.Paired(ctx, "telegram", "7"); ok {
		t.Fatal("paired while locked")
	}
	if _, err := st.ApprovePairing(ctx, "slack", slackCode); err != nil {
		t.Fatalf("another platform is locked too: %v", err)
	}
	clock.Advance(59 * time.Minute)
	if _, err := st.ApprovePairing(ctx, "telegram", code); !errors.Is(err, ErrPairingLocked) {
		t.Fatalf("after 59 minutes: %v", err)
	}
	clock.Advance(time.Minute)
	code, _, _ = st.RequestPairing(ctx, "telegram", "7", "Ann") // the old code expired meanwhile
	if _, err := st.ApprovePairing(ctx, "telegram", code); err != nil {
		t.Fatalf("after the lockout: %v", err)
	}
}

func TestWrongCodesCountUntilARightOne(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	for round := range 2 {
		code, _, _ := st.RequestPairing(ctx, "telegram", string(rune('a'+round)), "")
		for range 4 {
			st.ApprovePairing(ctx, "telegram", "ZZZZ-ZZZZ")
		}
		if _, err := st.ApprovePairing(ctx, "telegram", code); err != nil {
			t.Fatalf("round %d: four wrong codes then the right one: %v", round, err)
		}
	}
}

func TestRevokingAUserUnpairsThem(t *testing.T) {
	ctx := context.Background()
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	code, _, _ := st.RequestPairing(ctx, "telegram", "7", "Ann")
	st.ApprovePairing(ctx, "telegram", code)
	if err := st.RevokePairing(ctx, "telegram", "7"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.Paired(ctx, "telegram", "7"); ok {
		t.Fatal("still paired after revoke")
	}
	if err := st.RevokePairing(ctx, "telegram", "7"); !errors.Is(err, ErrNotPaired) {
		t.Fatalf("revoking twice: %v", err)
	}
	if _, fresh, err := st.RequestPairing(ctx, "telegram", "7", "Ann"); err != nil || !fresh {
		t.Fatalf("a revoked user asking again: %v", err)
	}
}
