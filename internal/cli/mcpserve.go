package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/mcp/serve"
)

// mcpServeFlags are hermes mcp serve's own flags.
type mcpServeFlags struct {
	listen      string
	allowPublic bool
}

func newMCPServeCmd(e *env) *cobra.Command {
	f := &runFlags{}
	sf := &mcpServeFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve hermes to MCP clients (stdio, or streamable HTTP with --listen)",
		Long: "hermes mcp serve speaks MCP on standard input and output, for clients that spawn it (Claude Code, Codex,\n" +
			"another hermes): configure an MCP server whose command is \"hermes mcp serve\". Logs go to stderr.\n\n" +
			"Tools: run_task (hand it a prompt; the answer comes back with its session_id), session_search,\n" +
			"conversations_list, conversation_get, messages_read, messages_send, events_poll, events_wait,\n" +
			"permissions_list_open and permissions_respond. A command that needs approval is asked of the client\n" +
			"through elicitation when it supports it, and denied otherwise.\n\n" +
			"--listen HOST:PORT (or :PORT, on 127.0.0.1) serves streamable HTTP instead, at /mcp; every request needs\n" +
			"\"Authorization: Bearer <key>\" with the key of " + serve.KeyEnv + " (environment or $HERMES_HOME/.env), and\n" +
			"without one the server does not start. An address other than loopback also needs --allow-public.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMCPServe(cmd.Context(), e, f, sf)
		},
	}
	fs := cmd.Flags()
	addProviderFlags(fs, f)
	fs.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets runs may use (default: all)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access (no sandbox)")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget per turn (default agent.max_turns, 500)")
	fs.StringVar(&sf.listen, "listen", "", "serve streamable HTTP on HOST:PORT (default host 127.0.0.1) instead of stdio")
	fs.BoolVar(&sf.allowPublic, "allow-public", false, "allow --listen on an address other than loopback")
	return cmd
}

func runMCPServe(ctx context.Context, e *env, f *runFlags, sf *mcpServeFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var addr, key string
	if sf.listen != "" {
		addr = listenAddr(sf.listen)
		if err := apiserver.CheckAddr(addr, sf.allowPublic); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		var err error
		if key, err = mcpServeKey(e); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	cfg, err := loadConfig(e, f)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	rt, err := app.New(ctx, cfg, app.Options{
		Source: serve.Source, Platform: "api", NoStream: f.noStream, Getenv: e.getenv,
		OnWarning: func(s string) { e.warn(s) },
	})
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	if line, short := statusLine(rt.Backend(), rt.SandboxStatus()); short {
		e.warn(line)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := serve.New(ctx, serve.Options{Runtime: rt, Version: Version,
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if addr == "" {
		// stdout is the protocol: everything else goes to stderr.
		if err := srv.ServeStdio(ctx, e.stdin, e.stdout); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		return nil
	}
	return serveMCPHTTP(ctx, e, srv, addr, key)
}

// serveMCPHTTP serves srv's streamable HTTP at /mcp on addr until ctx ends.
func serveMCPHTTP(ctx context.Context, e *env, srv *serve.Server, addr, key string) error {
	h, err := srv.Handler(key)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("listen %s: %w", addr, err)}
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "hermes: MCP server listening on http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = hs.Shutdown(sctx)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}

// listenAddr puts an address without a host ("8765", ":8765") on
// 127.0.0.1.
func listenAddr(s string) string {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, ":") {
		return net.JoinHostPort("127.0.0.1", s)
	}
	if strings.HasPrefix(s, ":") {
		return "127.0.0.1" + s
	}
	return s
}

// mcpServeKey is the HTTP transport's bearer key: the environment's, or
// $HERMES_HOME/.env's.
func mcpServeKey(e *env) (string, error) {
	if k := strings.TrimSpace(e.getenv(serve.KeyEnv)); k != "" {
		return k, nil
	}
	dot, err := config.LoadDotEnv(filepath.Join(config.Home(e.getenv), ".env"))
	if err != nil {
		return "", err
	}
	if k := strings.TrimSpace(dot[serve.KeyEnv]); k != "" {
		return k, nil
	}
	return "", serve.ErrNoKey
}
