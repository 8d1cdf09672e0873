package signal

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/signal/signaltest"
)

// A dropped stream is reported and opened again; what people wrote
// meanwhile arrives once, in order, and nothing before it again.
func TestReconnectResumesAfterTheLastEvent(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	_, h := start(t, srv, nil)
	dm := signaltest.DM(alice)
	srv.Say(alice, dm, "one")
	h.waitFor(t, "the first message", func() bool { return len(h.msgs) == 1 })
	srv.Disconnect()
	h.waitFor(t, "not connected", func() bool { return !h.connected() })
	srv.Say(alice, dm, "two")
	srv.Say(alice, dm, "three")
	srv.Reconnect()
	h.waitFor(t, "three messages", func() bool { return len(h.msgs) == 3 && h.connected() })
	if got := texts(h.messages()); got != "one|two|three" {
		t.Fatalf("the handler got %s", got)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var down *gateway.State
	for i := range h.states {
		if !h.states[i].Connected {
			down = &h.states[i]
		}
	}
	if down == nil || !strings.Contains(down.Detail, "signal-cli daemon") {
		t.Fatalf("the states: %+v", h.states)
	}
}

// A message the handler refuses is read again (the stream is opened
// from the event before it), and the messages after it follow it.
func TestARefusedMessageComesAgain(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	_, h := start(t, srv, nil)
	refusals := 0
	h.mu.Lock()
	h.refuse = func(m gateway.Inbound) bool {
		if m.Text == "two" && refusals < 2 {
			refusals++
			return true
		}
		return false
	}
	h.mu.Unlock()
	dm := signaltest.DM(alice)
	for _, s := range []string{"one", "two", "three"} {
		srv.Say(alice, dm, s)
	}
	h.waitFor(t, "three messages", func() bool { return len(h.msgs) == 3 })
	if got := texts(h.messages()); got != "one|two|three" || refusals != 2 {
		t.Fatalf("the handler got %s after %d refusals", got, refusals)
	}
}

// A new adapter on the same KV (the gateway restarted) asks for the
// events after the last one taken: what came while it was away arrives,
// nothing taken before comes again.
func TestARestartResumesFromTheKV(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	kv := gateway.NewMemoryKV()
	dm := signaltest.DM(alice)
	stop := func() {}
	{
		_, h := startStoppable(t, srv, kv, &stop)
		srv.Say(alice, dm, "before")
		h.waitFor(t, "the first message", func() bool { return len(h.msgs) == 1 })
	}
	stop()
	srv.Say(alice, dm, "while away")
	_, h := start(t, srv, kv)
	srv.Say(alice, dm, "after")
	h.waitFor(t, "two messages", func() bool { return len(h.msgs) == 2 })
	if got := texts(h.messages()); got != "while away|after" {
		t.Fatalf("after the restart the handler got %s", got)
	}
}

func texts(ms []gateway.Inbound) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, "|")
}

// readEvents reads the fields of server-sent events: several data lines
// join, comments are skipped, an id holds until replaced.
func TestReadEvents(t *testing.T) {
	in := ": keep-alive\n\nid:1\nevent:receive\ndata:{\"a\":\ndata: 1}\n\nevent:receive\ndata:x\n\n"
	var got []event
	err := readEvents(strings.NewReader(in), func(e event) error { got = append(got, e); return nil })
	if len(got) != 2 || got[0] != (event{ID: "1", Type: "receive", Data: "{\"a\":\n1}"}) || got[1] != (event{ID: "1", Type: "receive", Data: "x"}) {
		t.Fatalf("events %+v", got)
	}
	if err == nil {
		t.Fatal("the end of the stream is not reported")
	}
}
