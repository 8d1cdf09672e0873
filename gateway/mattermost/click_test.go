package mattermost_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hermes-go/hermes/gateway"
)

// A press of one of the bot's buttons becomes a Click with the button's
// Data and the presser; its answer is shown to the presser alone, and
// the post stays as it is.
func TestAPressIsAClickAnsweredToThePresser(t *testing.T) {
	srv := newServer(t)
	h := newRecorder()
	h.onClick = func(c gateway.Click) {
		if err := c.Answer(context.Background(), "Only the person who asked can answer this."); err != nil {
			t.Error(err)
		}
		if err := c.Answer(context.Background(), "again"); err == nil {
			t.Error("a click was answered twice")
		}
	}
	a := newAdapter(t, srv, nil)
	run(t, a, h)
	m := srv.Mention(team, alice, "delete it")
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: team, ThreadID: m.ID}, Text: "Approve?",
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "approval:42:once"}, {Label: "Deny", Data: "approval:42:deny"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := srv.Click(sent.MessageID, bob, "Once")
	if err != nil {
		t.Fatal(err)
	}
	if ans.Status != http.StatusOK || ans.EphemeralText != "Only the person who asked can answer this." || ans.Updated {
		t.Fatalf("the press was answered %+v", ans)
	}
	cs := h.clicked()
	if len(cs) != 1 || cs[0].Data != "approval:42:once" || cs[0].UserID != bob || cs[0].MessageID != sent.MessageID ||
		cs[0].Chat != (gateway.ChatRef{ChatID: team, ThreadID: m.ID}) {
		t.Fatalf("clicks %+v", cs)
	}
	if eph := srv.Ephemerals(team, bob); len(eph) != 1 || len(srv.Ephemerals(team, alice)) != 0 {
		t.Fatalf("ephemerals: bob %+v", eph)
	}
	if p, _ := srv.Post(sent.MessageID); len(p.Buttons) != 1 || len(p.History) != 1 {
		t.Fatalf("the press changed the post: %+v", p)
	}
}

// A press that does not carry the run's secret, as a forger or a button
// of an earlier run sends it, is refused and becomes no Click.
func TestAForgedPressIsRefused(t *testing.T) {
	srv := newServer(t)
	h := newRecorder()
	a := newAdapter(t, srv, nil)
	run(t, a, h)
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: dmA}, Text: "Approve?",
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "approval:42:once"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := srv.Post(sent.MessageID)
	b := p.Buttons[0][0]
	for _, ctx := range []string{`{"data":"approval:42:once"}`, `{"data":"approval:42:once","secret":"guess"}`} {
		ans, err := srv.ClickWith(sent.MessageID, alice, b.URL, json.RawMessage(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if ans.Status != http.StatusForbidden {
			t.Fatalf("a press with context %s was answered %+v", ctx, ans)
		}
	}
	// A second adapter (a restart) refuses the first one's buttons.
	a2 := newAdapter(t, srv, nil)
	h2 := newRecorder()
	run(t, a2, h2)
	sent2, err := a2.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: dmA}, Text: "Approve?",
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "approval:43:once"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := srv.Post(sent2.MessageID)
	if ans, err := srv.ClickWith(sent.MessageID, alice, p2.Buttons[0][0].URL, b.Context); err != nil || ans.Status != http.StatusForbidden {
		t.Fatalf("an earlier run's button: %+v %v", ans, err)
	}
	if len(h.clicked()) != 0 || len(h2.clicked()) != 0 {
		t.Fatalf("forged presses became clicks: %+v %+v", h.clicked(), h2.clicked())
	}
	// The genuine press still works.
	if ans, err := srv.Click(sent2.MessageID, alice, "Once"); err != nil || ans.Status != http.StatusOK {
		t.Fatalf("the genuine press: %+v %v", ans, err)
	}
	if len(h2.clicked()) != 1 {
		t.Fatalf("clicks %+v", h2.clicked())
	}
}

// An answer that comes after the press was answered is posted as an
// ephemeral post, to the presser alone.
func TestALateAnswerIsAnEphemeralPost(t *testing.T) {
	srv := newServer(t)
	h := newRecorder()
	late := make(chan gateway.Click, 1)
	h.onClick = func(c gateway.Click) { late <- c }
	a := newAdapterClickWait(t, srv)
	run(t, a, h)
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: dmA}, Text: "Approve?",
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "approval:42:once"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := srv.Click(sent.MessageID, alice, "Once")
	if err != nil || ans.Status != http.StatusOK || ans.EphemeralText != "" {
		t.Fatalf("the press was answered %+v %v", ans, err)
	}
	c := <-late
	if err := c.Answer(context.Background(), "Approved once."); err != nil {
		t.Fatal(err)
	}
	if eph := srv.Ephemerals(dmA, alice); len(eph) != 1 || eph[0].Text != "Approved once." {
		t.Fatalf("ephemerals %+v", eph)
	}
}
