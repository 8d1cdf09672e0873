package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-go/hermes/app"
)

// Defaults of the settings.
const (
	DefaultAddr              = "127.0.0.1:8642"
	DefaultModelName         = "hermes-agent"
	DefaultMaxConcurrentRuns = 10
	// maxBody bounds a request body.
	maxBody = 16 << 20
	// shutdownGrace is how long Serve lets running turns finish.
	shutdownGrace = 10 * time.Second
)

// ErrNoKey is New's refusal to serve without a key.
var ErrNoKey = errors.New("the API server needs a key: set API_SERVER_KEY in the environment or in $HERMES_HOME/.env, " +
	"or gateway.api_server.key in config.yaml; clients then send it as \"Authorization: Bearer <key>\"")

// Options configure a Server.
type Options struct {
	// Runtime opens the conversations (app.Runtime.Open); its Source should
	// be "api_server".
	Runtime *app.Runtime
	// Key is the bearer key every request must carry. Required.
	Key string
	// ModelName is the model /v1/models lists and responses name.
	ModelName string
	// CORSOrigins are the browser origins allowed ("*" for any); none
	// turns CORS off.
	CORSOrigins []string
	// MaxConcurrentRuns bounds the turns running at once (default 10).
	MaxConcurrentRuns int
	// QueueTimeout is how long a request over the bound waits for a
	// run to finish before it gets 429; 0 answers 429 at once.
	QueueTimeout time.Duration
	// AllowUnattended lets commands that need approval run
	// (approvals.unattended_mode: allow); by default they are denied.
	AllowUnattended bool
	// Logger receives server-side failures (default slog.Default()).
	Logger *slog.Logger
	// RunRetention is how long a finished run (POST /v1/runs) stays
	// readable (default DefaultRunRetention).
	RunRetention time.Duration
	// MaxRetainedRuns is how many finished runs stay readable (default
	// DefaultMaxRetainedRuns); the oldest are forgotten first.
	MaxRetainedRuns int
	// OnIdle runs when the server has had no turn running for a few
	// seconds, before it returns freed memory to the system: the place to
	// close idle connections to the model.
	OnIdle func()

	// Webhooks are the routes of POST /webhooks/NAME, by name. They
	// carry a signature instead of the key; with webhooks and no Key the
	// server serves only them and /health.
	Webhooks map[string]WebhookRoute
	// Deliveries remembers the webhook delivery ids already run, across
	// restarts (gateway.Store); required with Webhooks.
	Deliveries DeliveryStore
	// MaxWebhookBody bounds a delivery's body (default
	// DefaultMaxWebhookBody); a larger one gets 413.
	MaxWebhookBody int64
	// Deliver sends a completed webhook run's answer (text) to its
	// route's target and returns once it was delivered; its error is
	// logged and recorded on the run. Required when a route has a
	// target.
	Deliver func(ctx context.Context, target, runID, text string) error
}

// DefaultMaxWebhookBody bounds a webhook delivery's body by default.
const DefaultMaxWebhookBody = 1 << 20

// Server is the API server. Create it with New.
type Server struct {
	opts   Options
	runs   *limiter
	runReg *runRegistry
	hooks  *deliveries
	mux    *http.ServeMux
}

// New returns a server, or ErrNoKey (no key and no webhooks).
func New(o Options) (*Server, error) {
	if strings.TrimSpace(o.Key) == "" && len(o.Webhooks) == 0 {
		return nil, ErrNoKey
	}
	if err := checkWebhooks(o); err != nil {
		return nil, err
	}
	if o.MaxWebhookBody <= 0 {
		o.MaxWebhookBody = DefaultMaxWebhookBody
	}
	if o.Runtime == nil {
		return nil, errors.New("apiserver: no runtime")
	}
	if o.ModelName == "" {
		o.ModelName = DefaultModelName
	}
	if o.MaxConcurrentRuns <= 0 {
		o.MaxConcurrentRuns = DefaultMaxConcurrentRuns
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{opts: o, runs: newLimiter(o.MaxConcurrentRuns, o.QueueTimeout), runReg: newRunRegistry(o.RunRetention, o.MaxRetainedRuns),
		hooks: &deliveries{store: o.Deliveries}}
	if o.OnIdle != nil {
		s.runs.release = func() {
			o.OnIdle()
			freeMemory()
		}
	}
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("POST /v1/chat/completions", s.chatCompletions)
	m.HandleFunc("POST /v1/responses", s.createResponse)
	m.HandleFunc("GET /v1/responses/{id}", s.getResponse)
	m.HandleFunc("DELETE /v1/responses/{id}", s.deleteResponse)
	m.HandleFunc("GET /v1/models", s.listModels)
	m.HandleFunc("GET /v1/models/{id}", s.getModel)
	m.HandleFunc("GET /health", s.health)
	m.HandleFunc("GET /v1/health", s.health)
	m.HandleFunc("POST /v1/runs", s.createRun)
	m.HandleFunc("GET /v1/runs/{id}", s.getRun)
	m.HandleFunc("GET /v1/runs/{id}/events", s.runEvents)
	m.HandleFunc("POST /v1/runs/{id}/stop", s.stopRun)
	m.HandleFunc("GET /v1/runs", s.listRuns)
	m.HandleFunc("POST /v1/runs/{id}/approval", s.answerApproval)
	m.HandleFunc("GET /v1/capabilities", s.capabilities)
	m.HandleFunc("GET /health/detailed", s.healthDetailed)
	m.HandleFunc("POST /webhooks/{name}", s.webhook)
	m.HandleFunc("/webhooks/{name}", methodNotAllowed)
	for _, p := range []string{"/v1/chat/completions", "/v1/responses", "/v1/responses/{id}", "/v1/models", "/health",
		"/v1/runs", "/v1/runs/{id}", "/v1/runs/{id}/events", "/v1/runs/{id}/stop", "/v1/runs/{id}/approval", "/v1/capabilities", "/health/detailed"} {
		m.HandleFunc(p, methodNotAllowed)
	}
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		notFound(w, fmt.Sprintf("Unknown request URL: %s %s.", r.Method, r.URL.Path))
	})
	s.mux = m
}

// Handler serves the API: CORS first, then auth on every request.
func (s *Server) Handler() http.Handler {
	return s.cors(s.auth(s.mux))
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusMethodNotAllowed, typeInvalidRequest, "method_not_allowed", "",
		fmt.Sprintf("%s is not allowed on %s.", r.Method, r.URL.Path))
}

// Serve serves on ln until ctx ends, then lets running turns finish for
// a while before cutting them off.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				s.runs.poke()
			}
		},
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	cctx, ccancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer ccancel()
	s.Close(cctx)
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the runs still going (POST /v1/runs) and waits, until ctx
// ends, for them to record their end in their sessions. Serve calls it
// when it stops; a caller serving Handler itself calls it on shutdown.
func (s *Server) Close(ctx context.Context) {
	s.runReg.stopAll(ctx)
}

// CheckAddr refuses a listen address that is not loopback unless
// allowPublic: nothing listens on a public address unless asked.
func CheckAddr(addr string, allowPublic bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (want HOST:PORT, e.g. %s)", addr, err, DefaultAddr)
	}
	if port == "" {
		return fmt.Errorf("listen address %q has no port", addr)
	}
	if allowPublic || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("listen address %q is not a loopback address: anyone who can reach it could drive the agent; "+
		"pass --allow-public (or set gateway.api_server.allow_public: true) to listen there", addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
