package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

type pairingList struct {
	Pending []struct {
		Platform  string    `json:"platform"`
		Code      string    `json:"code"`
		UserID    string    `json:"user_id"`
		UserName  string    `json:"user_name"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"pending"`
	Approved []struct {
		Platform   string    `json:"platform"`
		UserID     string    `json:"user_id"`
		UserName   string    `json:"user_name"`
		ApprovedAt time.Time `json:"approved_at"`
	} `json:"approved"`
}

func listPairings(t *testing.T, home string) pairingList {
	t.Helper()
	r := hermes(t, home, home, "pairing", "list", "--json")
	var l pairingList
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || r.code != 0 {
		t.Fatalf("pairing list --json: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	return l
}

// The owner approves, through the binary, the code the gateway (holding
// its database open meanwhile) gave an unknown user, and can revoke it.
func TestPairingApproveAndRevokeThroughTheBinary(t *testing.T) {
	home := t.TempDir()
	if l := listPairings(t, home); l.Pending == nil || l.Approved == nil || len(l.Pending)+len(l.Approved) != 0 {
		t.Fatalf("before any gateway: %+v", l)
	}
	if _, err := os.Stat(gateway.StorePath(home)); err == nil {
		t.Fatal("pairing list created the gateway's database")
	}

	ctx := context.Background()
	st, err := gateway.OpenStore(gateway.StorePath(home), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	code, fresh, err := st.RequestPairing(ctx, "telegram", "4242", "Ann")
	if err != nil || !fresh {
		t.Fatal(err)
	}

	l := listPairings(t, home)
	if len(l.Pending) != 1 || len(l.Approved) != 0 {
		t.Fatalf("list: %+v", l)
	}
	p := l.Pending[0]
	if p.Platform != "telegram" || p.Code != code || p.UserID != "4242" || p.UserName != "Ann" ||
		p.ExpiresAt.Before(time.Now().Add(55*time.Minute)) || p.ExpiresAt.After(time.Now().Add(time.Hour)) {
		t.Fatalf("pending: %+v (code %s)", p, code)
	}
	r := hermes(t, home, home, "pairing", "list")
	if r.code != 0 || !contains(r.stdout, "telegram", gateway.FormatPairingCode(code), "4242", "Ann") {
		t.Fatalf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	wrong := "ZZZZ-ZZZZ"
	if strings.ReplaceAll(wrong, "-", "") == code {
		wrong = "YYYY-YYYY"
	}
	r = hermes(t, home, home, "pairing", "approve", "telegram", wrong)
	if r.code != 1 || !contains(r.stderr, "no pending telegram pairing request has code "+wrong, "expired") {
		t.Fatalf("a wrong code: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if ok, _ := st.Paired(ctx, "telegram", "4242"); ok {
		t.Fatal("paired by a wrong code")
	}

	r = hermes(t, home, home, "pairing", "approve", "Telegram", strings.ToLower(gateway.FormatPairingCode(code)))
	if r.code != 0 || !contains(r.stdout, "Approved telegram user 4242 (Ann)") {
		t.Fatalf("approve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if ok, err := st.Paired(ctx, "telegram", "4242"); !ok || err != nil {
		t.Fatalf("the running gateway does not see the approval: %v %v", ok, err)
	}
	l = listPairings(t, home)
	if len(l.Pending) != 0 || len(l.Approved) != 1 || l.Approved[0].UserID != "4242" || l.Approved[0].ApprovedAt.IsZero() {
		t.Fatalf("after approval: %+v", l)
	}

	r = hermes(t, home, home, "pairing", "revoke", "telegram", "4242")
	if r.code != 0 || !contains(r.stdout, "Revoked telegram user 4242") {
		t.Fatalf("revoke: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if ok, _ := st.Paired(ctx, "telegram", "4242"); ok {
		t.Fatal("still paired after revoke")
	}
	r = hermes(t, home, home, "pairing", "revoke", "telegram", "4242")
	if r.code != 1 || !contains(r.stderr, "telegram user 4242 is not paired") {
		t.Fatalf("revoking twice: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Five wrong codes lock approvals on the platform: the right code is
// then refused too.
func TestPairingApprovalsLockAfterFiveWrongCodes(t *testing.T) {
	home := t.TempDir()
	st, err := gateway.OpenStore(gateway.StorePath(home), nil)
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := st.RequestPairing(context.Background(), "slack", "U1", "Bo")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	wrong := "ZZZZZZZZ"
	if wrong == code {
		wrong = "YYYYYYYY"
	}
	for range 5 {
		if r := hermes(t, home, home, "pairing", "approve", "slack", wrong); r.code != 1 {
			t.Fatalf("a wrong code: exit %d %s", r.code, r.stderr)
		}
	}
	r := hermes(t, home, home, "pairing", "approve", "slack", code)
	if r.code != 1 || !contains(r.stderr, "locked") {
		t.Fatalf("the right code after five wrong ones: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if l := listPairings(t, home); len(l.Approved) != 0 || len(l.Pending) != 1 {
		t.Fatalf("after the lockout: %+v", l)
	}
}
