package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/logfile"
)

// logsFlags are hermes logs' flags.
type logsFlags struct {
	follow  bool
	lines   int
	level   string
	session string
	since   string
	json    bool
}

// followPoll is how often hermes logs -f looks for new lines.
const followPoll = 250 * time.Millisecond

func newLogsCmd(e *env) *cobra.Command {
	o := &logsFlags{}
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the log every hermes process writes (HERMES_HOME/logs/hermes.log)",
		Long: "Show the structured log that chats, one-shot runs, the gateway, hermes serve and cron append to,\n" +
			"rotated files included, oldest first. Secrets are masked before they are written.\n\n" +
			"  hermes logs -n 100 --level warn     the last 100 warnings and errors\n" +
			"  hermes logs --session 20261206_ -f  one session's records, then new ones as they come\n" +
			"  hermes logs --since 1h --json       the last hour as JSON lines",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogs(cmd.Context(), e, o)
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&o.follow, "follow", "f", false, "keep printing new records as they are written (until Ctrl-C)")
	fs.IntVarP(&o.lines, "lines", "n", 50, "print the last N records (0: all)")
	fs.StringVar(&o.level, "level", "", "only records at this level or above: debug, info, warn, error")
	fs.StringVar(&o.session, "session", "", "only records of this session (an id or its start)")
	fs.StringVar(&o.since, "since", "", "only records since then: a duration (30m, 1h, 2d) or a time (2026-12-06, 2026-12-06T08:00:00Z)")
	fs.BoolVar(&o.json, "json", false, "print the records as JSON lines, as written")
	return cmd
}

func runLogs(ctx context.Context, e *env, o *logsFlags) error {
	if o.lines < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("-n %d: a number of records, 0 for all", o.lines)}
	}
	f := logfile.Filter{Session: o.session}
	if o.level != "" {
		l, err := logfile.ParseLevel(o.level)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--level: %w", err)}
		}
		f.MinLevel, f.Leveled = l, true
	}
	if o.since != "" {
		t, err := parseSince(o.since, time.Now())
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--since: %w", err)}
		}
		f.Since = t
	}
	path := logfile.Path(config.Home(e.getenv))
	print := func(en logfile.Entry) {
		if o.json {
			fmt.Fprintf(e.stdout, "%s\n", en.Raw)
		} else {
			fmt.Fprintln(e.stdout, en.Text())
		}
	}
	var last []logfile.Entry
	tail, err := logfile.Scan(path, f, func(en logfile.Entry) {
		last = append(last, en)
		if o.lines > 0 && len(last) > 2*o.lines { // keep the memory bounded
			last = append(last[:0], last[len(last)-o.lines:]...)
		}
	})
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	defer tail.Close()
	if o.lines > 0 && len(last) > o.lines {
		last = last[len(last)-o.lines:]
	}
	for _, en := range last {
		print(en)
	}
	if !o.follow {
		if _, err := os.Stat(path); err != nil && len(last) == 0 {
			fmt.Fprintf(e.stderr, "hermes: no log yet at %s\n", path)
		}
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := tail.Follow(ctx.Done(), followPoll, print); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}

// parseSince reads --since: a duration before now (Go's 90m, 1h30m, or
// whole days, 2d), a date (local midnight) or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (30m, 1h, 2d) nor a time (2026-12-06, 2026-12-06T08:00:00Z)", s)
}
