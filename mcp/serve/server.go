package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/session"
)

// Source names the sessions run_task opens.
const Source = "mcp"

// Options configure a Server.
type Options struct {
	// Runtime runs the turns and holds the session store. Required.
	Runtime *app.Runtime
	// Version is the server's version in the MCP handshake.
	Version string
	// Logger receives what goes wrong outside a request (default: none).
	Logger *slog.Logger
	// Now is the clock of the event queue (default time.Now).
	Now func() time.Time
	// PollInterval is how often events_wait reads the store again while
	// it waits (default 500ms).
	PollInterval time.Duration
}

// Server is hermes as an MCP server. It is safe for concurrent use: one
// Server serves any number of client sessions.
type Server struct {
	opts      Options
	rt        *app.Runtime
	store     *session.Store
	mcp       *sdk.Server
	events    *events
	approvals *approvals

	jobsMu sync.Mutex
	jobs   map[string]*job // runs waiting on a client's answer, by request state
}

// New builds the server and its tools. The event queue starts now: the
// messages already stored are not events.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Runtime == nil {
		return nil, errors.New("mcp serve: no runtime")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	s := &Server{opts: o, rt: o.Runtime, store: o.Runtime.Store(), jobs: map[string]*job{}}
	s.events = newEvents(s.store, o.Now)
	if err := s.events.baseline(ctx); err != nil {
		return nil, err
	}
	s.approvals = &approvals{events: s.events, now: o.Now, open: map[string]*pendingApproval{}}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "hermes", Title: "Hermes Agent", Version: o.Version}, &sdk.ServerOptions{
		Instructions: "Hermes Agent: hand it work with run_task (a prompt; the answer comes back with its session_id), " +
			"search its past conversations with session_search, read them with conversations_list, conversation_get " +
			"and messages_read, continue one with messages_send, follow new messages with events_poll/events_wait, " +
			"and answer its waiting approvals with permissions_list_open/permissions_respond.",
		Logger: o.Logger,
	})
	s.addConversationTools()
	s.addEventTools()
	s.addRunTools()
	s.addPermissionTools()
	return s, nil
}

// MCP is the go-sdk server, for a caller with a transport of its own.
func (s *Server) MCP() *sdk.Server { return s.mcp }

// ServeStdio speaks MCP on in and out (a client that spawned hermes)
// until the client closes in or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcp.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Handler serves streamable HTTP, every request guarded by key (see
// requireKey). An empty key is refused.
func (s *Server) Handler(key string) (http.Handler, error) {
	if key == "" {
		return nil, ErrNoKey
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{Logger: s.opts.Logger})
	return requireKey(key, h), nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
