package cli

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/logfile"
	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/redact/harvest"
)

// openLog is the one place a hermes process gets its logger: masked
// JSON lines appended to HERMES_HOME/logs/hermes.log (logging.* in
// config.yaml), each record naming the command and the process, and,
// when stderr is set, the same records as text on stderr at that level,
// as the long-running commands have always printed them. File, what
// conversations log (every tool call), goes to the file only. A log that
// cannot be opened is a warning: hermes runs on without it.
func openLog(e *env, cfg *config.Config, command string, stderr slog.Leveler) *logfile.Log {
	l, err := tryOpenLog(e, cfg, command, stderr)
	if err != nil {
		e.warn(err)
	}
	return l
}

// tryOpenLog is openLog leaving the warning to the caller: a run whose
// HERMES_HOME cannot be written says so once, through the store's error,
// not twice.
func tryOpenLog(e *env, cfg *config.Config, command string, stderr slog.Leveler) (*logfile.Log, error) {
	var also slog.Handler
	if stderr != nil {
		also = slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: stderr})
	}
	l, err := newLog(cfg, command, also)
	if err != nil {
		return logfile.Discard(also), err
	}
	return l, nil
}

func newLog(cfg *config.Config, command string, also slog.Handler) (*logfile.Log, error) {
	level, err := logfile.ParseLevel(cfg.Logging.Level)
	if err != nil {
		return nil, err
	}
	size, err := cfg.Logging.SizeBytes()
	if err != nil {
		return nil, err
	}
	return logfile.Open(logfile.Options{
		Path: logfile.Path(cfg.Home), Level: level, MaxSize: size, MaxFiles: cfg.Logging.Files(),
		Mask: logMask(cfg), Also: also, Attrs: []slog.Attr{slog.String("cmd", command), slog.Int("pid", os.Getpid())},
	})
}

// logMask masks, by value, the secrets the process knows before any
// runtime is built (the configured key, HERMES_HOME/.env, the
// environment's credentials), and every secret by its shape. The
// runtime masks again with the secrets it learns later (workspaces).
func logMask(cfg *config.Config) func(string) string {
	secrets := []string{cfg.APIKey}
	if dot, err := config.LoadDotEnv(filepath.Join(cfg.Home, ".env")); err == nil {
		for _, v := range dot {
			secrets = append(secrets, v)
		}
	}
	secrets = append(secrets, harvest.Environ(os.Environ())...)
	return redact.New(secrets...).String
}
