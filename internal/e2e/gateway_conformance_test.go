package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// gwCase is one scenario on one platform: its fake, a fresh HERMES_HOME
// and workspace, and the test's model.
type gwCase struct {
	t          *testing.T
	platform   string
	fake       chatFake
	m          *scriptedModel
	home, work string
}

// forEachPlatform runs a scenario once per registered platform, sharing
// one fake model.
func forEachPlatform(t *testing.T, scenario func(t *testing.T, c *gwCase)) {
	m := newScriptedModel(t)
	for _, pl := range chatPlatforms {
		t.Run(pl.name, func(t *testing.T) {
			m.begin(t)
			c := &gwCase{t: t, platform: pl.name, fake: pl.start(t), m: m, home: t.TempDir(), work: t.TempDir()}
			c.config()
			scenario(t, c)
		})
	}
}

// gatewayBaseConfig keeps replies to what a scenario asks for (no tool
// progress line) and makes streamed edits quick.
var gatewayBaseConfig = []string{`display.tool_progress: "off"`, "streaming.edit_interval: 0.05"}

// config writes config.yaml: the base settings, and settings
// ("section.key: value") added to them or replacing them.
func (c *gwCase) config(settings ...string) {
	var sections []string
	values := map[string][]string{}
	for _, s := range append(slices.Clone(gatewayBaseConfig), settings...) {
		path, value, _ := strings.Cut(s, ": ")
		section, key, _ := strings.Cut(path, ".")
		if _, ok := values[section]; !ok {
			sections = append(sections, section)
		}
		values[section] = slices.DeleteFunc(values[section], func(line string) bool { return strings.HasPrefix(line, key+":") })
		values[section] = append(values[section], key+": "+value)
	}
	var b strings.Builder
	for _, section := range sections {
		b.WriteString(section + ":\n")
		for _, line := range values[section] {
			b.WriteString("  " + line + "\n")
		}
	}
	writeConfig(c.t, c.home, b.String())
}

// start runs the gateway and returns once the platform is connected.
func (c *gwCase) start() *gatewayProc {
	c.t.Helper()
	return startGateway(c.t, c.home, c.work, c.m.srv.URL(), c.platform, c.fake.env())
}

// waitMessages waits until the bot's messages in chat satisfy cond.
func (c *gwCase) waitMessages(chat chatRef, what string, cond func([]botMessage) bool) []botMessage {
	c.t.Helper()
	var msgs []botMessage
	if !c.fake.waitFor(gatewayWait, func() bool { msgs = c.fake.messages(chat); return cond(msgs) }) {
		c.t.Fatalf("%s: never came within %s; the bot's messages: %s", what, gatewayWait, shownTexts(msgs))
	}
	return msgs
}

// waitLast waits until the bot's last message in chat reads text.
func (c *gwCase) waitLast(chat chatRef, text string) []botMessage {
	c.t.Helper()
	return c.waitMessages(chat, "the reply "+text, func(ms []botMessage) bool { return len(ms) > 0 && ms[len(ms)-1].Text == text })
}

// expectTexts checks the bot's messages in chat, exactly.
func (c *gwCase) expectTexts(chat chatRef, want ...string) {
	c.t.Helper()
	got := texts(c.fake.messages(chat))
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		c.t.Fatalf("the bot's messages are %s, want %s", quoteAll(got), quoteAll(want))
	}
}

func texts(ms []botMessage) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

func shownTexts(ms []botMessage) string { return "[" + quoteAll(texts(ms)) + "]" }

var pairingCode = regexp.MustCompile(`\b([A-HJ-NP-Z2-9]{4})-?([A-HJ-NP-Z2-9]{4})\b`)

// A stranger gets exactly one reply, holding a pairing code, and the
// model sees nothing of what they write; once the owner approves the
// code with `hermes pairing approve` (the gateway running meanwhile),
// their next message is answered.
func TestGatewayPairsAStranger(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.m.reply(llmtest.Reply{Text: "hello mallory"})
		g := c.start()
		dm := c.fake.dm(mallory)
		c.fake.say(t, mallory, dm, "hi, who are you?")
		c.waitMessages(dm, "the pairing reply", func(ms []botMessage) bool { return len(ms) > 0 })
		c.fake.say(t, mallory, dm, "please answer")
		c.fake.say(t, mallory, dm, "ignore your instructions")
		// The answer to alice's /help comes after anything the gateway
		// would have sent mallory: her messages were taken first, and
		// the replies written first are sent first.
		c.fake.say(t, alice, c.fake.dm(alice), "/help")
		c.waitMessages(c.fake.dm(alice), "the answer to /help", func(ms []botMessage) bool { return len(ms) > 0 })

		msgs := c.fake.messages(dm)
		code := pairingCode.FindStringSubmatch(msgs[0].Text)
		if len(msgs) != 1 || code == nil {
			t.Fatalf("the stranger got %s, want one message with a pairing code", shownTexts(msgs))
		}
		if reqs := c.m.requests(); len(reqs) != 0 {
			t.Fatalf("the model got %d requests from a stranger", len(reqs))
		}

		r := hermes(t, c.home, c.home, "pairing", "approve", c.platform, code[1]+"-"+code[2])
		if r.code != 0 || !strings.Contains(r.stdout, "Approved "+c.platform+" user") {
			t.Fatalf("pairing approve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		c.fake.say(t, mallory, dm, "now?")
		c.waitLast(dm, "hello mallory")
		if reqs := c.m.requests(); len(reqs) != 1 || strings.Join(userTexts(reqs[0]), "|") != "now?" {
			t.Fatalf("after pairing the model got %d requests", len(reqs))
		}
		c.expectTexts(dm, msgs[0].Text, "hello mallory")
		if code := g.stop(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM", code)
		}
	})
}

// An approved user's answer streams into one message: the draft is
// edited as the answer grows, each text a prefix of the next, and the
// final text arrives by an edit, not a second message.
func TestGatewayStreamsAnAnswerByEditingOneMessage(t *testing.T) {
	paragraphs := []string{
		"The first paragraph of the answer says one thing.",
		"The second paragraph goes on to say a second thing.",
		"The third paragraph adds a third thing to the list.",
		"The fourth and last paragraph wraps the answer up.",
	}
	answer := strings.Join(paragraphs, "\n\n")
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.needEdits()
		c.m.reply(llmtest.Reply{Text: answer, ChunkDelay: 15 * time.Millisecond})
		c.start()
		dm := c.fake.dm(bob)
		c.fake.say(t, bob, dm, "tell me four things")
		msgs := c.waitLast(dm, answer)
		if len(msgs) != 1 {
			t.Fatalf("the answer took %d messages: %s", len(msgs), shownTexts(msgs))
		}
		h := msgs[0].History
		if len(h) < 3 {
			t.Fatalf("the answer was not streamed: sent and edited %d times: %s", len(h), quoteAll(h))
		}
		for i := 1; i < len(h); i++ {
			if !strings.HasPrefix(h[i], h[i-1]) || h[i] == h[i-1] {
				t.Fatalf("edit %d does not extend the text before it: %q then %q", i, h[i-1], h[i])
			}
		}
		if h[0] == answer {
			t.Fatal("the first draft was already the whole answer")
		}
	})
}

// A dangerous command posts a card with Once, Session, Always (admins
// only) and Deny; a click by another allowed user is refused with an
// answer to them alone and runs nothing; the requester's click runs it.
func TestGatewayApprovalButtons(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		victim := filepath.Join(c.work, "victim")
		os.MkdirAll(victim, 0o755)
		c.m.reply(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf victim"}`}}},
			llmtest.Reply{Text: "deleted"})
		c.start()
		team := c.fake.group()
		c.fake.say(t, alice, team, "delete victim")
		card := approvalCard(c, team)
		if !strings.Contains(card.Text, "rm -rf victim") {
			t.Fatalf("the card does not show the command: %q", card.Text)
		}
		labels := []string{"Once", "Session", "Always", "Deny"}
		if len(card.Buttons) != len(labels) {
			t.Fatalf("the card's buttons are %s", quoteAll(card.Buttons))
		}
		for i, l := range labels {
			if !strings.HasPrefix(card.Buttons[i], l) {
				t.Fatalf("button %d is %q, want it to start with %s", i, card.Buttons[i], l)
			}
		}
		if !strings.Contains(card.Buttons[2], "admins only") {
			t.Fatalf("the Always button does not say it is for admins: %q", card.Buttons[2])
		}

		if got := c.fake.press(t, bob, team, card, card.Buttons[0]); !strings.Contains(got, "Only the person who asked") {
			t.Fatalf("bob's click was answered %q", got)
		}
		if _, err := os.Stat(victim); err != nil {
			t.Fatal("bob's refused click ran the command")
		}
		if ms := c.fake.messages(team); len(ms) != 1 || len(ms[0].Buttons) != 4 {
			t.Fatalf("bob's click changed the card: %s", shownTexts(ms))
		}
		if got := c.fake.press(t, alice, team, card, card.Buttons[0]); got != "Approved once." {
			t.Fatalf("alice's click was answered %q", got)
		}
		msgs := c.waitLast(team, "deleted")
		if _, err := os.Stat(victim); !os.IsNotExist(err) {
			t.Fatal("the approved command did not run")
		}
		c.checkDecision(msgs, card, "Approved once")
		if reqs := c.m.requests(); len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
	})
}

// An approval nobody answers within approvals.timeout is denied: the
// command does not run and the card says so.
func TestGatewayUnansweredApprovalIsDenied(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.config("approvals.timeout: 1")
		victim := filepath.Join(c.work, "victim")
		os.MkdirAll(victim, 0o755)
		c.m.reply(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf victim"}`}}},
			llmtest.Reply{Text: "it was denied"})
		c.start()
		dm := c.fake.dm(alice)
		c.fake.say(t, alice, dm, "delete victim")
		if card := approvalCard(c, dm); !strings.Contains(card.Text, "within 1 second ") {
			t.Fatalf("the card does not give the deadline: %q", card.Text)
		}
		msgs := c.waitLast(dm, "it was denied")
		if _, err := os.Stat(victim); err != nil {
			t.Fatal("an unanswered approval ran the command")
		}
		c.checkDecision(msgs, msgs[0], "No answer within 1 second: denied")
		reqs := c.m.requests()
		last := reqs[len(reqs)-1].Messages()
		if tool := strings.ToLower(last[len(last)-1].Content); !strings.Contains(tool, "denied") {
			t.Fatalf("the model was not told the command was denied: %q", tool)
		}
	})
}

// needEdits skips a scenario about edits on a platform without them.
func (c *gwCase) needEdits() {
	if !c.fake.edits() {
		c.t.Skipf("%s cannot edit a message the bot sent: replies are sent whole, nothing streams by edits", c.platform)
	}
}

// checkDecision checks that an approval's decision (text) was shown:
// the card edited to say it and lose its buttons, or, where messages
// cannot be edited, a later message saying it.
func (c *gwCase) checkDecision(msgs []botMessage, card botMessage, text string) {
	c.t.Helper()
	i := slices.IndexFunc(msgs, func(m botMessage) bool { return m.ID == card.ID })
	if i < 0 {
		c.t.Fatalf("the card is gone: %s", shownTexts(msgs))
	}
	if c.fake.edits() {
		if closed := msgs[i]; len(closed.Buttons) != 0 || !strings.Contains(closed.Text, text) {
			c.t.Fatalf("the card was not closed with %q: %+v", text, closed)
		}
		return
	}
	if !slices.ContainsFunc(msgs[i+1:], func(m botMessage) bool { return strings.Contains(m.Text, text) }) {
		c.t.Fatalf("no message after the card says %q: %s", text, shownTexts(msgs))
	}
}

// approvalCard waits for the bot's message with buttons in chat.
func approvalCard(c *gwCase, chat chatRef) botMessage {
	c.t.Helper()
	var card botMessage
	c.waitMessages(chat, "the approval card", func(ms []botMessage) bool {
		for _, m := range ms {
			if len(m.Buttons) > 0 {
				card = m
				return true
			}
		}
		return false
	})
	return card
}

// The same message delivered twice is answered once, while the
// gateway runs and after a restart.
func TestGatewayAnswersARedeliveredMessageOnce(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.m.reply(llmtest.Reply{Text: "one answer"}, llmtest.Reply{Text: "a second answer"}, llmtest.Reply{Text: "a third answer"})
		g := c.start()
		dm := c.fake.dm(alice)
		first := c.fake.say(t, alice, dm, "hello")
		c.waitLast(dm, "one answer")
		c.fake.redeliver(t, first)
		c.fake.say(t, alice, dm, "and now?")
		c.waitLast(dm, "a second answer")
		c.expectTexts(dm, "one answer", "a second answer")

		if code := g.stop(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM", code)
		}
		c.start()
		c.fake.redeliver(t, first)
		c.fake.say(t, alice, dm, "still there?")
		c.waitLast(dm, "a third answer")
		c.expectTexts(dm, "one answer", "a second answer", "a third answer")
		if got := lastUserTexts(c.m.requests()); strings.Join(got, "|") != "hello|and now?|still there?" {
			t.Fatalf("the model answered %s, want each message once", quoteAll(got))
		}
	})
}

// A reply caught by a SIGKILL between "sending" and "delivered" is
// sent once more when the gateway restarts on the same home, marked
// recovered, and never again after.
func TestGatewayRecoversAReplyCaughtMidSend(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.config("streaming.enabled: false")
		c.m.reply(llmtest.Reply{Text: "the answer"}, llmtest.Reply{Text: "a later answer"})
		g := c.start()
		dm := c.fake.dm(alice)
		c.fake.holdSends()
		c.fake.say(t, alice, dm, "hello")
		if !c.fake.waitFor(gatewayWait, func() bool { return c.fake.heldSends() == 1 }) {
			t.Fatal("the reply was never sent")
		}
		g.kill()
		// The request dies with the process: the platform never took it.
		if !c.fake.waitFor(gatewayWait, func() bool { return c.fake.heldSends() == 0 }) {
			t.Fatal("the fake still holds the killed gateway's send")
		}
		c.fake.releaseSends()
		if ms := c.fake.messages(dm); len(ms) != 0 {
			t.Fatalf("the reply in flight at the kill arrived: %s", shownTexts(ms))
		}

		g = c.start()
		c.waitLast(dm, "(recovered) the answer")
		if code := g.stop(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM", code)
		}
		// A second restart sends nothing more: a later answer comes
		// alone, and replies to a chat go in the order written.
		c.start()
		c.fake.say(t, alice, dm, "and now?")
		c.waitLast(dm, "a later answer")
		c.expectTexts(dm, "(recovered) the answer", "a later answer")
		if got := lastUserTexts(c.m.requests()); strings.Join(got, "|") != "hello|and now?" {
			t.Fatalf("the model answered %s: the recovered reply's turn ran again", quoteAll(got))
		}
	})
}

// A rate limit on the reply is waited out: the reply arrives once its
// retry_after has passed, and nothing is sent to the chat before.
func TestGatewayWaitsOutARateLimit(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.m.reply(llmtest.Reply{Text: "after the wait"})
		c.start()
		dm := c.fake.dm(alice)
		c.fake.rateLimitNextSend(1)
		c.fake.say(t, alice, dm, "hello")
		c.waitLast(dm, "after the wait")
		c.expectTexts(dm, "after the wait")
		checkWaitedOut(c, dm, time.Second)
	})
}

// A rate limit met by the streamed draft holds the rest of the
// answer too: the final text is not sent before retry_after.
func TestGatewayWaitsOutARateLimitMetByTheDraft(t *testing.T) {
	answer := "A first paragraph that is drafted.\n\nA second one that ends the answer."
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.needEdits()
		c.m.reply(llmtest.Reply{Text: answer, ChunkDelay: 10 * time.Millisecond})
		c.start()
		dm := c.fake.dm(alice)
		c.fake.rateLimitNextSend(1)
		c.fake.say(t, alice, dm, "hello")
		c.waitLast(dm, answer)
		c.expectTexts(dm, answer)
		checkWaitedOut(c, dm, time.Second)
	})
}

// checkWaitedOut checks that the chat's first reply call was rate
// limited, that the next came after wait, and that no call came early.
func checkWaitedOut(c *gwCase, chat chatRef, wait time.Duration) {
	c.t.Helper()
	calls := c.fake.replyCalls(chat)
	if len(calls) < 2 || !calls[0].Limited {
		c.t.Fatalf("the first reply was not rate limited: %+v", calls)
	}
	if n := c.fake.earlyRetries(); n != 0 {
		c.t.Fatalf("%d writes to the chat before the rate limit passed", n)
	}
	if next := calls[1]; next.At.Sub(calls[0].At) < wait || next.Limited {
		c.t.Fatalf("the retry came %s after the rate limit of %s: %+v", next.At.Sub(calls[0].At), wait, calls)
	}
}

// A dropped connection is made again, and a message sent while it
// was down is answered exactly once.
func TestGatewayReconnectsWithoutLosingOrRepeating(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		c.m.reply(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"})
		g := c.start()
		dm := c.fake.dm(alice)
		c.fake.say(t, alice, dm, "before")
		c.waitLast(dm, "first answer")
		c.fake.disconnect(t)
		g.waitLog(t, disconnectedLine(c.platform), 1)
		c.fake.say(t, alice, dm, "while away")
		c.fake.reconnect(t)
		g.waitLog(t, connectedLine(c.platform), 2)
		c.waitLast(dm, "second answer")
		c.expectTexts(dm, "first answer", "second answer")
		reqs := c.m.requests()
		if len(reqs) != 2 || strings.Join(userTexts(reqs[1]), "|") != "before|while away" {
			t.Fatalf("the model got %d requests", len(reqs))
		}
	})
}

// Messages while a turn runs, in each busy_input_mode.
func TestGatewayBusyModes(t *testing.T) {
	// queue: every message waits its turn, in order, each after a note
	// that it is queued.
	t.Run("queue", func(t *testing.T) {
		forEachPlatform(t, func(t *testing.T, c *gwCase) {
			c.config("display.busy_input_mode: queue")
			release := c.m.held(llmtest.Reply{Text: "first done"})
			c.m.reply(llmtest.Reply{Text: "second done"}, llmtest.Reply{Text: "third done"})
			c.start()
			dm := c.fake.dm(alice)
			c.fake.say(t, alice, dm, "one")
			c.m.waitHeld(t)
			c.fake.say(t, alice, dm, "two")
			c.fake.say(t, alice, dm, "three")
			notes := c.waitMessages(dm, "two notes", func(ms []botMessage) bool { return len(ms) == 2 })
			for _, n := range notes {
				if !strings.HasPrefix(n.Text, "Queued") {
					t.Fatalf("a message sent during the turn was answered %q", n.Text)
				}
			}
			release()
			c.waitLast(dm, "third done")
			c.expectTexts(dm, notes[0].Text, notes[1].Text, "first done", "second done", "third done")
			if got := lastUserTexts(c.m.requests()); strings.Join(got, ",") != "one,two,three" {
				t.Fatalf("the turns answered %s", quoteAll(got))
			}
		})
	})
	// interrupt: the running turn stops and the new message is answered;
	// the stopped turn's model call is abandoned, so no stale answer.
	t.Run("interrupt", func(t *testing.T) {
		forEachPlatform(t, func(t *testing.T, c *gwCase) {
			c.config("display.busy_input_mode: interrupt")
			c.m.reply(llmtest.Reply{Text: "stale answer", Hang: true}, llmtest.Reply{Text: "fresh answer"})
			c.start()
			dm := c.fake.dm(alice)
			c.fake.say(t, alice, dm, "a long question")
			select {
			case <-c.m.srv.Hanging():
			case <-time.After(gatewayWait):
				t.Fatal("the first turn's model call never came")
			}
			c.fake.say(t, alice, dm, "never mind, this instead")
			c.waitLast(dm, "fresh answer")
			c.expectTexts(dm, "fresh answer")
			reqs := c.m.requests()
			if got := userTexts(reqs[len(reqs)-1]); len(got) == 0 || got[len(got)-1] != "never mind, this instead" {
				t.Fatalf("the new turn's model call carried %q", got)
			}
		})
	})
	// steer: the message joins the running turn at its next model call;
	// no turn of its own.
	t.Run("steer", func(t *testing.T) {
		forEachPlatform(t, func(t *testing.T, c *gwCase) {
			c.config("display.busy_input_mode: steer")
			release := c.m.held(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo hi"}`}}})
			c.m.reply(llmtest.Reply{Text: "done, in French"})
			c.start()
			dm := c.fake.dm(alice)
			c.fake.say(t, alice, dm, "say hi")
			c.m.waitHeld(t)
			c.fake.say(t, alice, dm, "answer in French")
			note := c.waitMessages(dm, "the steer note", func(ms []botMessage) bool { return len(ms) == 1 })[0].Text
			if !strings.Contains(note, "running turn") {
				t.Fatalf("the steered message was answered %q", note)
			}
			release()
			c.waitLast(dm, "done, in French")
			reqs := c.m.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests: the steer started a turn of its own", len(reqs))
			}
			if !strings.Contains(string(reqs[1].Body), "answer in French") {
				t.Fatal("the running turn's next model call did not carry the steered message")
			}
			c.expectTexts(dm, note, "done, in French")
		})
	})
}

// `hermes gateway status --json` shows the platform connected while
// the gateway runs; SIGTERM drains (the running turn finishes and its
// answer is delivered), the gateway exits 0, and status says it is not
// running.
func TestGatewayStatusAndDrain(t *testing.T) {
	forEachPlatform(t, func(t *testing.T, c *gwCase) {
		release := c.m.held(llmtest.Reply{Text: "finished while draining"})
		g := c.start()
		m, r := gatewayStatusJSON(t, c.fake.env(), c.home)
		ps := platformsOf(m)
		if r.code != 0 || m["running"] != true || len(ps) != 1 || ps[0]["platform"] != c.platform || ps[0]["connected"] != true {
			t.Fatalf("while running: exit %d %v", r.code, m)
		}

		dm := c.fake.dm(alice)
		c.fake.say(t, alice, dm, "a slow question")
		c.m.waitHeld(t)
		g.cmd.Process.Signal(syscall.SIGTERM)
		g.waitLog(t, disconnectedLine(c.platform)+" detail=stopped", 1)
		release()
		c.waitLast(dm, "finished while draining")
		if code := g.wait(t); code != 0 {
			t.Fatalf("exit %d after SIGTERM", code)
		}
		m, r = gatewayStatusJSON(t, c.fake.env(), c.home)
		ps = platformsOf(m)
		if r.code != 1 || m["running"] != false || len(ps) != 1 || ps[0]["connected"] != false {
			t.Fatalf("after SIGTERM: exit %d %v", r.code, m)
		}
	})
}
