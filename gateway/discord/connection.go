package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/hermes-go/hermes/gateway"
)

// Details of the State the adapter reports while not connected.
const (
	heartbeatLost = "heartbeat not acknowledged: reconnecting"
	socketLost    = "connection lost: reconnecting"
)

// stableSocket is how long a socket must have stayed open for the next
// reconnect to start again from Backoff.
const stableSocket = time.Minute

// fatalCode says why a gateway close code makes reconnecting useless
// until the configuration changes ("" for the others).
func fatalCode(code int) string {
	switch code {
	case 4004:
		return "the token was refused"
	case 4010:
		return "invalid shard"
	case 4011:
		return "sharding required"
	case 4012:
		return "invalid API version"
	case 4013:
		return "invalid intents"
	case 4014:
		return "disallowed intents: enable the Message Content intent for the bot in the Discord developer portal"
	}
	return ""
}

// Run connects to Discord's gateway and hands every message and button
// press to h until ctx ends. It reconnects on its own: a lost socket is
// resumed (Discord replays what was missed), with Backoff doubling after
// each failed attempt. It returns an error only when Discord refuses the
// bot for good (a bad token, intents the bot may not use).
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("discord: Run is already running")
	}
	defer a.running.Store(false)
	a.mu.Lock()
	a.h, a.ctx, a.stopped = h, ctx, false
	a.mu.Unlock()
	if err := a.login(ctx); err != nil || ctx.Err() != nil {
		a.stop()
		return err
	}
	a.seen.load(ctx)

	wait := a.o.Backoff
	for {
		a.drainDropped()
		err := a.open(ctx)
		if ctx.Err() != nil {
			a.stop()
			return nil
		}
		if err != nil {
			if why, fatal := fatalClose(err); fatal {
				a.state(false, "refused: "+why)
				a.stop()
				return fmt.Errorf("discord: gateway refused the bot: %s: %w", why, err)
			}
			a.log.Warn("discord: connecting to the gateway failed", "err", err, "retry_in", wait)
			a.state(false, "connecting failed: "+err.Error())
			if !a.sleep(ctx, wait) {
				a.stop()
				return nil
			}
			wait = min(2*wait, a.o.MaxBackoff)
			continue
		}
		opened := time.Now()
		done := make(chan struct{})
		go a.watch(done)
		select {
		case <-ctx.Done():
			close(done)
			a.stop()
			return nil
		case <-a.dropped:
			close(done)
		}
		// A socket that held starts the waits over; one that keeps
		// dropping soon after opening backs off like one that fails to
		// open.
		if time.Since(opened) >= stableSocket {
			wait = a.o.Backoff
		}
		reason := a.takeReason()
		a.log.Warn("discord: gateway socket closed", "reason", reason, "retry_in", wait)
		a.state(false, reason)
		if !a.sleep(ctx, wait) {
			a.stop()
			return nil
		}
		wait = min(2*wait, a.o.MaxBackoff)
	}
}

// login checks the token (GET /users/@me) before the gateway is tried,
// retrying while Discord cannot be reached.
func (a *Adapter) login(ctx context.Context) error {
	wait := a.o.Backoff
	for {
		var ans answer
		me, err := a.s.User("@me", a.call(ctx, &ans)...)
		if err == nil {
			a.mu.Lock()
			a.me = me
			a.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		if ans.status == http.StatusUnauthorized {
			a.state(false, "refused: the token was refused (401)")
			return fmt.Errorf("discord: the bot token was refused: %w", classify("log in", err, &ans))
		}
		err = classify("log in", err, &ans)
		a.log.Warn("discord: cannot reach Discord", "err", err, "retry_in", wait)
		a.state(false, "cannot reach Discord: "+err.Error())
		if !a.sleep(ctx, wait) {
			return nil
		}
		wait = min(2*wait, a.o.MaxBackoff)
	}
}

// open runs discordgo's Open (HELLO, IDENTIFY or RESUME, the first
// event). Open reads without a deadline, so a server that never answers,
// or ctx ending, cuts the socket under it.
func (a *Adapter) open(ctx context.Context) error {
	timer := time.AfterFunc(handshakeTimeout, a.cut)
	defer timer.Stop()
	stop := context.AfterFunc(ctx, a.cut)
	defer stop()
	err := a.s.Open()
	if errors.Is(err, discordgo.ErrWSAlreadyOpen) {
		return nil
	}
	return err
}

// fatalClose says whether the gateway closed the socket with a code that
// makes reconnecting useless.
func fatalClose(err error) (string, bool) {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return "", false
	}
	why := fatalCode(ce.Code)
	ok := why != ""
	if ok {
		why = fmt.Sprintf("%s (close code %d)", why, ce.Code)
	}
	return why, ok
}

// stop closes the session for good when Run ends. discordgo's Close
// sends close 1000, which ends the session on Discord's side: the bot
// shows as offline at once.
func (a *Adapter) stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	_ = a.s.Close()
	a.state(false, "stopped")
}

// sleep waits d or until ctx ends; it says whether to go on.
func (a *Adapter) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// watch checks the socket is alive: every HeartbeatTimeout it sends a
// heartbeat of its own and checks the gateway acknowledged the previous
// one. A socket that stops acknowledging (a zombie: open, but nothing
// comes through) is cut, so Run reconnects and resumes; discordgo's own
// check waits five heartbeat intervals (3.4 minutes on Discord).
func (a *Adapter) watch(done <-chan struct{}) {
	t := time.NewTicker(a.o.HeartbeatTimeout)
	defer t.Stop()
	var probe time.Time
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if !probe.IsZero() && a.lastAck().Before(probe) {
			a.setReason(heartbeatLost)
			a.state(false, heartbeatLost)
			a.cut()
			return
		}
		probe = time.Now()
		beat := heartbeatOp{Op: 1}
		if seq := a.seq.Load(); seq > 0 {
			beat.D = &seq
		}
		if err := a.s.GatewayWriteStruct(beat); err != nil {
			return // the socket is gone; Run hears of it
		}
	}
}

// heartbeatOp is op 1 with the last sequence number seen, null before
// the first.
type heartbeatOp struct {
	Op int    `json:"op"`
	D  *int64 `json:"d"`
}

func (a *Adapter) lastAck() time.Time {
	a.s.RLock()
	defer a.s.RUnlock()
	return a.s.LastHeartbeatAck
}

func (a *Adapter) setReason(r string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reason = r
}

// takeReason says why the socket closed: the adapter's own reason when it
// cut it, else a heartbeat lost when discordgo's check closed it, else a
// lost connection.
func (a *Adapter) takeReason() string {
	a.mu.Lock()
	r := a.reason
	a.reason = ""
	a.mu.Unlock()
	switch {
	case r != "":
		return r
	case time.Since(a.lastAck()) > 2*a.o.HeartbeatTimeout:
		return heartbeatLost
	}
	return socketLost
}

func (a *Adapter) drainDropped() {
	select {
	case <-a.dropped:
	default:
	}
}

// onDisconnect hears discordgo close a socket (a read error, op 7, its own
// heartbeat check, the adapter cutting it). A close that comes after the
// adapter dialled a new socket is about an old one and changes nothing.
func (a *Adapter) onDisconnect(_ *discordgo.Session, _ *discordgo.Disconnect) {
	a.mu.Lock()
	stale := a.stopped || (a.raw != nil && !a.raw.closed.Load())
	a.mu.Unlock()
	if stale {
		return
	}
	select {
	case a.dropped <- struct{}{}:
	default:
	}
}

// onReady: a new session (after IDENTIFY).
func (a *Adapter) onReady(_ *discordgo.Session, r *discordgo.Ready) {
	a.mu.Lock()
	if r.User != nil {
		a.me = r.User
	}
	a.mu.Unlock()
	app := ""
	if r.Application != nil {
		app = r.Application.ID
	}
	a.menuReady(app)
	a.state(true, a.name())
	a.catchUp()
}

// onResumed: the session continues on a new socket; Discord replayed
// what it had missed before this event.
func (a *Adapter) onResumed(_ *discordgo.Session, _ *discordgo.Resumed) {
	a.state(true, a.name())
}

// onEvent keeps the last sequence number for the watchdog's heartbeats.
func (a *Adapter) onEvent(_ *discordgo.Session, e *discordgo.Event) {
	if e.Sequence > 0 {
		a.seq.Store(e.Sequence)
	}
}

// name is the bot as the status shows it: "@name", or "@name#1234" for an
// account that still has a discriminator.
func (a *Adapter) name() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.me == nil {
		return ""
	}
	if a.me.Discriminator != "" && a.me.Discriminator != "0" {
		return "@" + a.me.Username + "#" + a.me.Discriminator
	}
	return "@" + a.me.Username
}

func (a *Adapter) botID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.me == nil {
		return ""
	}
	return a.me.ID
}

// state reports a change of the connection to the handler, once per
// change.
func (a *Adapter) state(connected bool, detail string) {
	a.mu.Lock()
	h := a.h
	if h == nil || (a.last.Connected == connected && a.last.Detail == detail && !a.last.Since.IsZero()) {
		a.mu.Unlock()
		return
	}
	st := gateway.State{Platform: a.Platform(), Connected: connected, Detail: detail, Since: a.o.Now()}
	a.last = st
	a.mu.Unlock()
	h.State(st)
}

func (a *Adapter) handler() (gateway.Handler, context.Context) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.h, a.ctx
}
