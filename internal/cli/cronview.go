package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/cron"
)

func cronJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// jobJSON is a job as hermes cron list --json and show --json print it.
// The API key is never printed: api_key_set says whether one is stored.
func jobJSON(j cron.Job) map[string]any {
	return map[string]any{
		"id": j.ID, "name": j.Name, "schedule": j.Schedule.Text, "kind": string(j.Schedule.Kind),
		"prompt": j.Prompt, "skills": cronList(j.Skills), "deliver": j.Deliver, "toolsets": cronList(j.Toolsets),
		"model": j.Model, "provider": j.Provider, "base_url": j.BaseURL, "api_key_set": j.APIKey != "",
		"workdir": j.Workdir, "timeout_seconds": int(j.Timeout / time.Second), "repeat": j.Repeat, "remaining": j.Remaining,
		"enabled": j.Enabled, "state": j.State, "next_run_at": rfc3339(j.NextRunAt), "last_run_at": rfc3339(j.LastRunAt),
		"last_status": string(j.LastStatus), "last_error": j.LastError, "created_at": rfc3339(j.CreatedAt),
	}
}

func cronList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func newCronListCmd(e *env, f *runFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the jobs with their last status and next fire",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			jobs, err := st.Jobs(cmd.Context())
			if err != nil {
				return cronErr(err)
			}
			if asJSON {
				out := make([]map[string]any, 0, len(jobs))
				for _, j := range jobs {
					out = append(out, jobJSON(j))
				}
				return cronJSON(e.stdout, out)
			}
			if len(jobs) == 0 {
				_, err := fmt.Fprintln(e.stdout, "no cron jobs (hermes cron add --name N --schedule S --prompt P)")
				return err
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSCHEDULE\tSTATE\tNEXT FIRE\tLAST STATUS\tLAST ERROR")
			for _, j := range jobs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.ID, j.Name, j.Schedule.Text, j.State, humanTime(j.NextRunAt),
					orDash(string(j.LastStatus)), oneLine(j.LastError, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of jobs")
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newCronShowCmd(e *env, f *runFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show a job",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			j, err := st.Job(cmd.Context(), args[0])
			if err != nil {
				return cronErr(err)
			}
			return printJob(e, j, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the job as JSON")
	return cmd
}

func printJob(e *env, j cron.Job, asJSON bool) error {
	if asJSON {
		return cronJSON(e.stdout, jobJSON(j))
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	row := func(k string, v any) { fmt.Fprintf(tw, "%s:\t%v\n", k, v) }
	row("id", j.ID)
	row("name", j.Name)
	row("schedule", j.Schedule.Text+" ("+j.Schedule.Describe()+")")
	row("state", j.State)
	row("next fire", humanTime(j.NextRunAt))
	row("last run", humanTime(j.LastRunAt))
	row("last status", orDash(string(j.LastStatus)))
	if j.LastError != "" {
		row("last error", j.LastError)
	}
	row("deliver", j.Deliver)
	if j.Repeat > 0 {
		row("repeat", fmt.Sprintf("%d (%d left)", j.Repeat, j.Remaining))
	}
	if j.Model != "" || j.Provider != "" || j.BaseURL != "" {
		row("model", fmt.Sprintf("%s %s %s", j.Provider, j.Model, j.BaseURL))
	}
	if j.APIKey != "" {
		row("api key", "set (not shown)")
	}
	if len(j.Skills) > 0 {
		row("skills", j.Skills)
	}
	if len(j.Toolsets) > 0 {
		row("toolsets", j.Toolsets)
	}
	row("workdir", j.Workdir)
	row("prompt", j.Prompt)
	return tw.Flush()
}

func newCronHistoryCmd(e *env, f *runFlags) *cobra.Command {
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "Show a job's runs and skipped fires, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			j, err := st.Job(cmd.Context(), args[0])
			if err != nil {
				return cronErr(err)
			}
			runs, err := st.History(cmd.Context(), j.ID, limit)
			if err != nil {
				return cronErr(err)
			}
			if asJSON {
				out := make([]map[string]any, 0, len(runs))
				for _, r := range runs {
					out = append(out, map[string]any{"run_id": r.ID, "job_id": r.JobID, "scheduled_at": rfc3339(r.ScheduledAt),
						"started_at": rfc3339(r.StartedAt), "ended_at": rfc3339(r.EndedAt), "status": string(r.Status), "error": r.Error,
						"output": r.Output, "session_id": r.SessionID, "delivery": r.Delivery})
				}
				return cronJSON(e.stdout, out)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSCHEDULED\tSTARTED\tSTATUS\tDETAIL")
			for _, r := range runs {
				detail := r.Error
				if detail == "" {
					detail = r.Delivery
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, humanTime(r.ScheduledAt), humanTime(r.StartedAt), r.Status, oneLine(detail, 80))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().IntVar(&limit, "limit", 50, "rows to show (0: all)")
	return cmd
}
