package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
)

// jobFlags are the settings of a job that add and edit take.
type jobFlags struct {
	name, schedule, prompt, deliver, workdir, tz string
	skills                                       []string
	repeat                                       int
	timeout                                      time.Duration
	json                                         bool
}

func addJobFlags(fs *pflag.FlagSet, f *runFlags, jf *jobFlags) {
	fs.StringVar(&jf.name, "name", "", "the job's name (unique; commands take it in place of the id)")
	fs.StringVar(&jf.schedule, "schedule", "", `when it runs: "every 30m", "every day at 9am", "0 9 * * 1-5", "in 2h", an ISO time (see hermes cron --help)`)
	fs.StringVar(&jf.prompt, "prompt", "", "what each run asks the agent")
	fs.StringArrayVar(&jf.skills, "skill", nil, "preload a skill into each run (repeatable)")
	fs.StringVar(&jf.deliver, "deliver", "", "where the answer goes: local (default), PLATFORM, PLATFORM:CHAT[:THREAD] or an http(s) URL")
	fs.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets each run may use (default: all)")
	fs.IntVar(&jf.repeat, "repeat", 0, "number of runs, then the job is completed (0: forever)")
	fs.StringVar(&jf.workdir, "workdir", "", "working directory of each run (default: the current directory)")
	fs.StringVar(&jf.tz, "tz", "", "time zone of the schedule (an IANA name; default cron.timezone or the system's)")
	fs.DurationVar(&jf.timeout, "timeout", 0, "time limit of each run (default cron.timeout, 10m)")
}

func newCronCmd(e *env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "cron",
		Short: "Run prompts on a schedule",
		Long: "hermes cron keeps jobs (a prompt, a schedule, a delivery target) in $HERMES_HOME/cron/cron.db.\n" +
			"hermes cron daemon (or hermes gateway) runs them; each run is a fresh conversation nobody attends:\n" +
			"commands that need approval are denied, the sandbox applies, and each run has a time limit.\n" +
			"Every run's answer is kept in $HERMES_HOME/cron/output/<job id>/<run id>.md.\n\n" + cron.Forms,
		Args: cobra.NoArgs,
	}
	addProviderFlags(cmd.PersistentFlags(), f)
	cmd.AddCommand(newCronAddCmd(e, f), newCronListCmd(e, f), newCronShowCmd(e, f), newCronEditCmd(e, f),
		newCronStateCmd(e, f, "pause", "Stop a job firing until it is resumed"),
		newCronStateCmd(e, f, "resume", "Let a paused job fire again"),
		newCronStateCmd(e, f, "remove", "Delete a job and its history"),
		newCronRunCmd(e, f), newCronHistoryCmd(e, f), newCronDaemonCmd(e, f))
	return cmd
}

// cronEnv is what every cron command opens: the configuration and the
// store.
func cronOpen(e *env, f *runFlags) (*config.Config, *cron.Store, error) {
	cfg, err := loadConfig(e, f)
	if err != nil {
		return nil, nil, &exitError{code: exitFor(err), err: err}
	}
	st, err := cron.Open(cron.StorePath(cfg.Home))
	if err != nil {
		return nil, nil, &exitError{code: exitFailed, err: err}
	}
	return cfg, st, nil
}

// cronErr gives a store error its exit status: 1, or 2 for a job that
// does not exist or a setting refused.
func cronErr(err error) error {
	if err == nil {
		return nil
	}
	code := exitFailed
	if errors.Is(err, cron.ErrNotFound) || errors.Is(err, cron.ErrBadSchedule) || errors.Is(err, errCronUsage) {
		code = exitUsage
	}
	return &exitError{code: code, err: err}
}

var errCronUsage = errors.New("usage")

func scheduleLocation(cfg *config.Config, tz string) (*time.Location, error) {
	if tz == "" {
		return cfg.Cron.Location()
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("--tz %q: not a time zone (an IANA name such as Europe/Paris): %w", tz, errCronUsage)
	}
	return loc, nil
}

func newCronAddCmd(e *env, f *runFlags) *cobra.Command {
	jf := &jobFlags{}
	cmd := &cobra.Command{
		Use:   "add --name N --schedule S --prompt P",
		Short: "Add a job and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			j, err := jobFromFlags(cfg, f, jf, time.Now())
			if err != nil {
				return cronErr(err)
			}
			j, err = st.Add(cmd.Context(), j, time.Now())
			if err != nil {
				return cronErr(err)
			}
			if jf.json {
				return cronJSON(e.stdout, map[string]any{"id": j.ID, "name": j.Name, "next_run_at": rfc3339(j.NextRunAt)})
			}
			_, err = fmt.Fprintln(e.stdout, j.ID)
			return err
		},
	}
	addJobFlags(cmd.Flags(), f, jf)
	cmd.Flags().BoolVar(&jf.json, "json", false, "print a JSON object with the job's id")
	return cmd
}

// jobFromFlags is the new job add describes.
func jobFromFlags(cfg *config.Config, f *runFlags, jf *jobFlags, now time.Time) (cron.Job, error) {
	if jf.name == "" || jf.schedule == "" || (jf.prompt == "" && len(jf.skills) == 0) {
		return cron.Job{}, fmt.Errorf("hermes cron add needs --name, --schedule and --prompt: %w", errCronUsage)
	}
	loc, err := scheduleLocation(cfg, jf.tz)
	if err != nil {
		return cron.Job{}, err
	}
	sched, err := cron.ParseSchedule(jf.schedule, now, loc)
	if err != nil {
		return cron.Job{}, err
	}
	wd, err := jobWorkdir(jf.workdir)
	if err != nil {
		return cron.Job{}, err
	}
	if _, err := cron.ParseTarget(jf.deliver); err != nil {
		return cron.Job{}, fmt.Errorf("--deliver: %w: %w", err, errCronUsage)
	}
	return cron.Job{Name: jf.name, Schedule: sched, Prompt: jf.prompt, Skills: jf.skills, Deliver: jf.deliver,
		Model: f.model, Provider: f.provider, BaseURL: f.baseURL, APIKey: f.apiKey, Toolsets: f.toolsetList(),
		Workdir: wd, Timeout: jf.timeout, Repeat: jf.repeat}, nil
}

func jobWorkdir(dir string) (string, error) {
	if dir == "" {
		return os.Getwd()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--workdir %s: not a directory: %w", dir, errCronUsage)
	}
	return abs, nil
}

func newCronEditCmd(e *env, f *runFlags) *cobra.Command {
	jf := &jobFlags{}
	cmd := &cobra.Command{
		Use:   "edit ID [flags]",
		Short: "Change a job's settings (only the flags given)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			changed := func(n string) bool { return cmd.Flags().Changed(n) || cmd.InheritedFlags().Changed(n) }
			now := time.Now()
			j, err := st.Update(cmd.Context(), args[0], now, func(j *cron.Job) error {
				return editJob(cfg, f, jf, changed, j, now)
			})
			if err != nil {
				return cronErr(err)
			}
			return printJob(e, j, jf.json)
		},
	}
	addJobFlags(cmd.Flags(), f, jf)
	cmd.Flags().BoolVar(&jf.json, "json", false, "print the job as JSON")
	return cmd
}

func editJob(cfg *config.Config, f *runFlags, jf *jobFlags, changed func(string) bool, j *cron.Job, now time.Time) error {
	if changed("schedule") || changed("tz") {
		text := j.Schedule.Text
		if changed("schedule") {
			text = jf.schedule
		}
		loc, err := scheduleLocation(cfg, jf.tz)
		if err != nil {
			return err
		}
		if j.Schedule, err = cron.ParseSchedule(text, now, loc); err != nil {
			return err
		}
	}
	set := func(flag string, dst *string, v string) {
		if changed(flag) {
			*dst = v
		}
	}
	set("name", &j.Name, jf.name)
	set("prompt", &j.Prompt, jf.prompt)
	set("deliver", &j.Deliver, jf.deliver)
	set("model", &j.Model, f.model)
	set("provider", &j.Provider, f.provider)
	set("base-url", &j.BaseURL, f.baseURL)
	set("api-key", &j.APIKey, f.apiKey)
	if changed("skill") {
		j.Skills = jf.skills
	}
	if changed("toolsets") {
		j.Toolsets = f.toolsetList()
	}
	if changed("repeat") {
		j.Repeat = jf.repeat
	}
	if changed("timeout") {
		j.Timeout = jf.timeout
	}
	if changed("workdir") {
		wd, err := jobWorkdir(jf.workdir)
		if err != nil {
			return err
		}
		j.Workdir = wd
	}
	if j.State == cron.StateCompleted && (changed("schedule") || changed("repeat")) {
		j.Enabled, j.State = true, cron.StateScheduled
	}
	return nil
}

func newCronStateCmd(e *env, f *runFlags, action, short string) *cobra.Command {
	return &cobra.Command{
		Use:   action + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, now := cmd.Context(), time.Now()
			var j cron.Job
			switch action {
			case "pause":
				j, err = st.Pause(ctx, args[0], now)
			case "resume":
				j, err = st.Resume(ctx, args[0], now)
			default:
				j, err = st.Remove(ctx, args[0])
			}
			if err != nil {
				return cronErr(err)
			}
			past := map[string]string{"pause": "paused", "resume": "resumed", "remove": "removed"}[action]
			line := fmt.Sprintf("%s %s (%s)", past, j.ID, j.Name)
			if action == "resume" {
				line += ", next fire " + humanTime(j.NextRunAt)
			}
			_, err = fmt.Fprintln(e.stdout, line)
			return err
		},
	}
}

// ensureCtx is ctx, or a background context for commands run without one.
func ensureCtx(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

func humanTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05 MST")
}

func rfc3339(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Format(time.RFC3339)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
