package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/session"
)

// Session modes an editor can set.
const (
	ModeDefault  = "default"
	ModeYolo     = "yolo"
	ModeReadOnly = "read-only"
)

// Source is the stored sessions' source.
const Source = "acp"

// Options configure Serve.
type Options struct {
	// Runtime builds the agents; its Source should be Source.
	Runtime *app.Runtime
	// Version is reported to the editor.
	Version string
	// Logger receives what goes wrong on the connection (stderr: stdout
	// is the protocol's).
	Logger *slog.Logger
}

// Serve speaks ACP on in and out until the editor closes the connection
// or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Runtime == nil {
		return errors.New("acp: no runtime")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	a := &server{opts: o, rt: o.Runtime, sessions: map[string]*sess{}, ready: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(a, out, newLineGuard(in, o.Logger))
	conn.SetLogger(o.Logger)
	a.conn = conn
	close(a.ready)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.closeAll()
	return nil
}

// server implements sdk.Agent.
type server struct {
	opts Options
	rt   *app.Runtime
	conn *sdk.AgentSideConnection
	// ready closes once conn is set: the connection reads requests before
	// its constructor returns.
	ready chan struct{}

	mu       sync.Mutex
	sessions map[string]*sess
}

var (
	_ sdk.Agent       = (*server)(nil)
	_ sdk.AgentLoader = (*server)(nil)
	// The unstable methods the SDK routes to an agent that has them.
	_ interface {
		UnstableForkSession(context.Context, sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error)
		UnstableSetSessionModel(context.Context, sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error)
	} = (*server)(nil)
)

// sess is an editor's session: where it works, its mode, the stored
// session its next prompt continues; and, while a prompt runs, its agent.
type sess struct {
	id  string
	cwd string

	mu      sync.Mutex
	mode    string
	model   string // the model its turns go to (app.ModelID); "" is the runtime's
	stored  string // "" until the first turn stored it
	running *app.Conversation
	calls   map[string]*toolCall // tool calls of the running turn, by id
	ws      *app.Workspace       // kept across prompts (prompt.go)
	wsMode  string

	// The editor's MCP servers (mcp.go), set before the session is
	// listed and stopped with it.
	mcp         *app.SessionMCP
	stopMCPWait context.CancelFunc
}

// close interrupts the session's turn, ends its workspace and stops its
// MCP servers.
func (se *sess) close() {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.running != nil {
		se.running.Interrupt()
	}
	if se.ws != nil {
		se.ws.Close()
		se.ws = nil
	}
	if se.stopMCPWait != nil {
		se.stopMCPWait()
	}
	if se.mcp != nil {
		se.mcp.Close()
		se.mcp = nil
	}
}

func (s *sess) setMode(m string) {
	s.mu.Lock()
	s.mode = m
	a := s.running
	s.mu.Unlock()
	if a != nil {
		a.SetYolo(m == ModeYolo) // the sandbox mode applies from the next prompt
	}
}

func (s *server) session(id sdk.SessionId) (*sess, error) {
	<-s.ready
	s.mu.Lock()
	defer s.mu.Unlock()
	se, ok := s.sessions[string(id)]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q: open it with session/new or session/load first", id)})
	}
	return se, nil
}

// open lists se; a session of the same id open before (loaded again)
// is closed.
func (s *server) open(se *sess) {
	s.mu.Lock()
	old := s.sessions[se.id]
	s.sessions[se.id] = se
	s.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// closeAll ends every session: the editor went away.
func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, se := range s.sessions {
		se.close()
	}
}

func (s *server) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    mcpCapabilities,
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Fork:   &sdk.SessionForkCapabilities{},
			},
		},
		AgentInfo:   &sdk.Implementation{Name: "hermes", Title: sdk.Ptr("Hermes"), Version: s.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (s *server) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil // hermes keeps its keys in HERMES_HOME; nothing to log in to
}

func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	<-s.ready
	se := &sess{id: session.NewID(time.Now), cwd: p.Cwd, mode: ModeDefault}
	s.startMCP(ctx, se, p.McpServers)
	s.open(se)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(se.id), Modes: modes(ModeDefault), Models: s.models(se)}, nil
}

// LoadSession is session/load: a stored session opened again, its
// history replayed to the editor.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	se, err := s.reopen(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	msgs, err := s.rt.Store().Messages(ctx, se.stored)
	if err != nil {
		return sdk.LoadSessionResponse{}, fmt.Errorf("reading session %s: %w", se.stored, err)
	}
	s.replay(ctx, se, msgs)
	return sdk.LoadSessionResponse{Modes: modes(ModeDefault), Models: s.models(se)}, nil
}

// ResumeSession is session/resume: session/load without the replay, for
// an editor that still shows the conversation.
func (s *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	se, err := s.reopen(ctx, p.SessionId, p.Cwd, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: modes(ModeDefault), Models: s.models(se)}, nil
}

// reopen opens the stored session id as an ACP session of the same id,
// in cwd (default where it ran), with the editor's MCP servers.
func (s *server) reopen(ctx context.Context, id sdk.SessionId, cwd string, servers []sdk.McpServer) (*sess, error) {
	<-s.ready
	stored, err := s.rt.Store().Get(ctx, string(id))
	if errors.Is(err, session.ErrNotFound) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no stored session %q", id)})
	}
	if err != nil {
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	se := &sess{id: stored.ID, cwd: cmp.Or(cwd, stored.Cwd), mode: ModeDefault, stored: stored.ID}
	s.startMCP(ctx, se, servers)
	s.open(se)
	return se, nil
}

func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	switch m := string(p.ModeId); m {
	case ModeDefault, ModeYolo, ModeReadOnly:
		se.setMode(m)
	default:
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q (default, yolo, read-only)", m)})
	}
	return sdk.SetSessionModeResponse{}, nil
}

func (s *server) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	// The SDK has cancelled the prompt's context; interrupting the agent
	// as well ends a turn that is between two calls at once.
	se, err := s.session(p.SessionId)
	if err != nil {
		return nil
	}
	se.mu.Lock()
	a := se.running
	se.mu.Unlock()
	if a != nil {
		a.Interrupt()
	}
	return nil
}

func (s *server) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s.mu.Lock()
	se := s.sessions[string(p.SessionId)]
	delete(s.sessions, string(p.SessionId))
	s.mu.Unlock()
	if se != nil {
		se.close()
	}
	return sdk.CloseSessionResponse{}, nil
}

func (s *server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

func modes(current string) *sdk.SessionModeState {
	return &sdk.SessionModeState{
		CurrentModeId: sdk.SessionModeId(current),
		AvailableModes: []sdk.SessionMode{
			{Id: ModeDefault, Name: "Default", Description: sdk.Ptr("Ask before dangerous commands; write only inside the workspace.")},
			{Id: ModeYolo, Name: "Yolo", Description: sdk.Ptr("Run dangerous commands without asking (hardline ones are still refused; the sandbox stays).")},
			{Id: ModeReadOnly, Name: "Read-only", Description: sdk.Ptr("Commands and file tools cannot change anything.")},
		},
	}
}
