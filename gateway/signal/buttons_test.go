package signal

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/gateway"
)

// The buttons of at most maxCards messages are kept: the oldest are
// forgotten first, so memory stays bounded however many approvals a
// long-running gateway posts.
func TestCardsAreBounded(t *testing.T) {
	a, err := New(Options{Account: "+15550000000"})
	if err != nil {
		t.Fatal(err)
	}
	btn := [][]gateway.Button{{{Label: "Once", Data: "ap:1:once"}}}
	for ts := int64(1); ts <= maxCards+1; ts++ {
		a.remember("chat", ts, btn)
	}
	ctx := context.Background()
	if _, ok := a.pressed(ctx, "chat", 1, "1️⃣"); ok {
		t.Fatal("the oldest card is still kept")
	}
	if data, ok := a.pressed(ctx, "chat", 2, "1️⃣"); !ok || data != "ap:1:once" {
		t.Fatalf("the second card: %q %v", data, ok)
	}
	if len(a.cards) != maxCards || len(a.order) != maxCards {
		t.Fatalf("%d cards kept in %d keys", len(a.cards), len(a.order))
	}
	// Listing stops at ten buttons: there are ten keycaps.
	var many []gateway.Button
	for i := 0; i < 12; i++ {
		many = append(many, gateway.Button{Label: "x", Data: "d"})
	}
	a.remember("chat", 9999, [][]gateway.Button{many})
	if n := len(a.cards["chat\x009999"]); n != len(keycaps) {
		t.Fatalf("a card with 12 buttons keeps %d", n)
	}
}
