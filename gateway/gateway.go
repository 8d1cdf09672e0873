package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
)

// Busy input modes: what a message does while its chat's turn runs.
const (
	BusyInterrupt = "interrupt" // the turn stops at its next tool boundary; the message is the next turn
	BusyQueue     = "queue"     // the message waits its turn, every one kept in order
	BusySteer     = "steer"     // the message joins the running turn at its next model call
)

// Access says who may talk to the bot on one platform.
type Access struct {
	// AllowAll lets everyone in (no pairing).
	AllowAll bool
	// Allowed are the user ids that may talk to it; Admins may too, and
	// use every command.
	Allowed []string
	Admins  []string
	// RequireMention makes the bot answer in groups only when mentioned
	// or replied to (the default); Channels overrides it per chat id.
	RequireMention bool
	Channels       map[string]bool
}

// Options configure a Gateway.
type Options struct {
	Runtime  *app.Runtime
	Store    *Store
	Adapters []Adapter
	// Access is each platform's access, by Adapter.Platform().
	Access map[string]Access
	// GroupSessionsPerUser gives each user of a group a conversation of
	// their own (the default); false shares one per group (or thread).
	GroupSessionsPerUser bool
	// MaxConcurrentTurns bounds the turns running at once (default 10);
	// the other chats' messages wait in their queues.
	MaxConcurrentTurns int
	// BusyMode is BusyInterrupt (default), BusyQueue or BusySteer.
	BusyMode string
	// Streaming edits one message as the answer grows, at most once per
	// EditInterval (default 0.8 s).
	Streaming    bool
	EditInterval time.Duration
	// ToolProgress is display.tool_progress: off, or a status line of the
	// tools a turn called.
	ToolProgress string
	// LedgerPoll, when set, makes the senders read the delivery ledger at
	// least this often, to send what another process wrote there (a
	// delivery hermes cron daemon could not finish).
	LedgerPoll time.Duration
	// ApprovalTimeout denies a command nobody answered for (default 300 s).
	ApprovalTimeout time.Duration
	// Conversation is the template every chat's conversation is opened
	// with (toolsets, model, max turns, sandbox); the gateway sets the
	// session, source, platform and callbacks.
	Conversation app.ConversationOptions
	// CacheDir is where files people send are saved
	// ($HERMES_HOME/cache).
	CacheDir string
	// StatusPath is the status file `hermes gateway status` reads.
	StatusPath string
	// DrainTimeout bounds how long Run waits for running turns after its
	// context ends (default 60 s); then they are interrupted.
	DrainTimeout time.Duration
	// IdleAfter is how long the gateway waits with no chat at work before
	// it hands back cached memory (the stores' page caches) and calls
	// OnIdle (default 5 s); hermes gateway closes idle model connections
	// there.
	IdleAfter time.Duration
	OnIdle    func()
	Logger    *slog.Logger
	Now       func() time.Time
	// After is the timer the gateway waits on (time.After by default);
	// tests give a fake clock's.
	After func(time.Duration) <-chan time.Time
}

// Gateway serves the adapters' chats from one runtime. Each chat is one
// conversation at a time, opened for a turn and closed after it: nothing
// of a conversation stays in memory between turns.
type Gateway struct {
	o        Options
	log      *slog.Logger
	rt       *app.Runtime
	store    *Store
	adapters map[string]Adapter
	senders  map[string]*Sender
	commands *slash.Registry
	slots    chan struct{}

	mu     sync.Mutex
	chats  map[string]*chat // chats with a worker, a turn or a pending question
	states map[string]State
	asks   map[string]*ask // approval and clarify questions by id
	// files are the attachments of queued messages, by message id: the
	// queue stores what they are, not how to fetch them.
	files     map[string][]Attachment
	wg        sync.WaitGroup  // chat workers
	ctx       context.Context // Run's context for workers; nil before Run
	closed    bool
	started   time.Time
	idling    bool            // a wait for quiet runs
	announced map[string]bool // platforms whose command menu was set
}

// New checks the options and builds a gateway; Run serves it.
func New(o Options) (*Gateway, error) {
	if o.Runtime == nil || o.Store == nil {
		return nil, errors.New("gateway: a runtime and a store are needed")
	}
	if len(o.Adapters) == 0 {
		return nil, errors.New("gateway: no platform is enabled")
	}
	o.MaxConcurrentTurns = cmp.Or(o.MaxConcurrentTurns, 10)
	o.BusyMode = cmp.Or(o.BusyMode, BusyInterrupt)
	switch o.BusyMode {
	case BusyInterrupt, BusyQueue, BusySteer:
	default:
		return nil, fmt.Errorf("gateway: busy input mode %q is not one of interrupt, queue, steer", o.BusyMode)
	}
	o.EditInterval = cmp.Or(o.EditInterval, 800*time.Millisecond)
	o.ApprovalTimeout = cmp.Or(o.ApprovalTimeout, 300*time.Second)
	o.DrainTimeout = cmp.Or(o.DrainTimeout, 60*time.Second)
	o.IdleAfter = cmp.Or(o.IdleAfter, 5*time.Second)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{
		o: o, log: o.Logger, rt: o.Runtime, store: o.Store,
		adapters: map[string]Adapter{}, senders: map[string]*Sender{},
		slots: make(chan struct{}, o.MaxConcurrentTurns),
		chats: map[string]*chat{}, states: map[string]State{}, asks: map[string]*ask{}, files: map[string][]Attachment{},
		announced: map[string]bool{},
	}
	for _, a := range o.Adapters {
		p := a.Platform()
		if _, dup := g.adapters[p]; dup {
			return nil, fmt.Errorf("gateway: platform %s is enabled twice", p)
		}
		g.adapters[p] = a
		g.senders[p] = NewSender(o.Store, a, SenderOptions{Logger: o.Logger, After: o.After, Plain: plainOf(a.Limits().Format), Poll: o.LedgerPoll})
		g.states[p] = State{Platform: p, Detail: "starting", Since: o.Now()}
	}
	g.commands = newRegistry(o.Runtime)
	return g, nil
}

// Run serves every platform until ctx ends, then drains: no new message
// is taken, running turns get DrainTimeout to finish (then they are
// interrupted), their replies are delivered, and Run returns nil. It
// returns an error when a platform cannot run at all.
func (g *Gateway) Run(ctx context.Context) error {
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	g.mu.Lock()
	g.ctx = work
	g.started = g.o.Now()
	g.mu.Unlock()
	g.writeStatus()

	var bg sync.WaitGroup
	for _, s := range g.senders {
		bg.Go(func() { s.Run(work) })
	}
	g.resumeQueues(work)

	errs := make(chan error, len(g.adapters))
	var ads sync.WaitGroup
	for _, a := range g.adapters {
		ads.Go(func() {
			if err := a.Run(ctx, &handler{g: g, a: a}); err != nil {
				g.State(State{Platform: a.Platform(), Detail: err.Error(), Since: g.o.Now()})
				errs <- fmt.Errorf("%s: %w", a.Platform(), err)
			}
		})
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errs:
	}
	ads.Wait()

	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	// One DrainTimeout bounds both the turns and the delivery of their
	// replies.
	stopping, stopped := context.WithCancel(context.Background())
	defer stopped()
	go func() {
		select {
		case <-g.o.After(g.o.DrainTimeout):
			stopped()
		case <-stopping.Done():
		}
	}()
	g.drain(stopping)
	g.flush(stopping)
	stopWork()
	bg.Wait()
	for p := range g.adapters {
		g.State(State{Platform: p, Detail: "stopped", Since: g.o.Now()})
	}
	return runErr
}

// drain waits for the chat workers, interrupting their turns once
// deadline ends.
func (g *Gateway) drain(deadline context.Context) {
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-deadline.Done():
	}
	g.mu.Lock()
	for _, c := range g.chats {
		c.interrupt()
	}
	g.mu.Unlock()
	<-done
}

// flush waits, until deadline ends, for the replies the ledger still
// owes to be delivered (or failed): the answers of the last turns go out
// before the gateway exits. What is left (a long rate limit) is sent by
// the next start.
func (g *Gateway) flush(deadline context.Context) {
	for p, s := range g.senders {
		rows, err := g.store.Deliveries(deadline, p, DeliveryPending, DeliverySending)
		if err != nil {
			g.log.Error("replies owed at stop", "platform", p, "err", err)
			continue
		}
		for i, d := range rows {
			if _, err := s.Wait(deadline, d.ID); err != nil && deadline.Err() != nil {
				g.log.Warn("stopping with replies not delivered; the next start sends them", "platform", p, "left", len(rows)-i)
				return
			}
		}
	}
}

// State records an adapter's connection and writes the status file.
func (g *Gateway) State(s State) {
	if s.Since.IsZero() {
		s.Since = g.o.Now()
	}
	g.mu.Lock()
	prev := g.states[s.Platform]
	g.states[s.Platform] = s
	announce := s.Connected && !g.announced[s.Platform] && g.ctx != nil
	if announce {
		g.announced[s.Platform] = true
	}
	ctx := g.ctx
	g.mu.Unlock()
	if announce {
		// The menu once the platform answers: at start it may not.
		go g.announceCommands(ctx, s.Platform)
	}
	if prev.Connected != s.Connected || prev.Detail != s.Detail {
		if s.Connected {
			g.log.Info("platform connected", "platform", s.Platform, "detail", s.Detail)
		} else {
			g.log.Warn("platform not connected", "platform", s.Platform, "detail", s.Detail)
		}
	}
	g.writeStatus()
}

// Chats is how many chats the gateway holds in memory: those with a
// queued message, a turn or an open question. An idle chat is not held.
func (g *Gateway) Chats() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.chats)
}

// States is every platform's connection, by platform name.
func (g *Gateway) States() []State {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]State, 0, len(g.states))
	for _, p := range slices.Sorted(maps.Keys(g.states)) {
		out = append(out, g.states[p])
	}
	return out
}

func (g *Gateway) writeStatus() {
	if g.o.StatusPath == "" {
		return
	}
	f := StatusFile{PID: os.Getpid(), StartedAt: g.started}
	for _, s := range g.States() {
		f.Apply(s, g.o.Now())
	}
	if err := WriteStatus(g.o.StatusPath, f); err != nil {
		g.log.Error("status file", "path", g.o.StatusPath, "err", err)
	}
}

// announceCommands fills a platform's command menu with what anyone
// allowed may use, once it first connects.
func (g *Gateway) announceCommands(ctx context.Context, platform string) {
	m, ok := g.adapters[platform].(Commands)
	if !ok {
		return
	}
	var cmds []Command
	for _, c := range g.commands.Commands() {
		if safeCommand(c) {
			cmds = append(cmds, Command{Name: c.Name, Description: c.Summary})
		}
	}
	if err := m.SetCommands(ctx, cmds); err != nil {
		g.log.Warn("command menu", "platform", platform, "err", err)
		g.mu.Lock()
		g.announced[platform] = false // tried again when it next connects
		g.mu.Unlock()
	}
}

// resumeQueues starts the workers of chats whose messages were queued
// when the gateway last stopped.
func (g *Gateway) resumeQueues(ctx context.Context) {
	keys, err := g.store.QueuedKeys(ctx)
	if err != nil {
		g.log.Error("queued messages", "err", err)
		return
	}
	for _, k := range keys {
		q, err := g.store.Queued(ctx, k)
		if err != nil || len(q) == 0 {
			continue
		}
		m := q[0].Message
		a, ok := g.adapters[m.Platform]
		if !ok {
			g.log.Warn("queued messages for a platform not enabled", "platform", m.Platform, "chat", k)
			continue
		}
		g.chatFor(k, a, m.Chat).kick()
	}
}

// quiet is called when the last chat at work is forgotten: once no chat
// has worked for IdleAfter, what the busy time cached is handed back.
func (g *Gateway) quiet() {
	g.mu.Lock()
	if g.idling || g.ctx == nil {
		g.mu.Unlock()
		return
	}
	g.idling = true
	ctx := g.ctx
	g.mu.Unlock()
	go func() {
		for {
			select {
			case <-g.o.After(g.o.IdleAfter):
			case <-ctx.Done():
				g.mu.Lock()
				g.idling = false
				g.mu.Unlock()
				return
			}
			g.mu.Lock()
			busy := len(g.chats) > 0
			if !busy {
				g.idling = false
			}
			g.mu.Unlock()
			if busy {
				continue // work came meanwhile: wait for quiet again
			}
			g.ReleaseMemory(ctx)
			return
		}
	}()
}

// ReleaseMemory hands back what busy time cached: the session store's
// and the gateway store's page caches, and what OnIdle releases. The
// gateway calls it once quiet for IdleAfter.
func (g *Gateway) ReleaseMemory(ctx context.Context) {
	if err := g.rt.Store().ReleaseMemory(ctx); err != nil {
		g.log.Warn("releasing the session store's memory", "err", err)
	}
	if err := g.store.ReleaseMemory(ctx); err != nil {
		g.log.Warn("releasing the gateway store's memory", "err", err)
	}
	if g.o.OnIdle != nil {
		g.o.OnIdle()
	}
}
