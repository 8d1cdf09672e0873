package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm/pricing"
)

func newInsightsCmd(e *env) *cobra.Command {
	var days int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "insights",
		Short: "Tokens and cost by day, model and source (cli, telegram, cron, api_server...) from the stored sessions",
		Long: "Sum the token use the providers reported for the sessions started in the last N days, by day, by model\n" +
			"and by source, and price it at the models' list prices (prompt-cache reads and writes apart).\n" +
			"A model without a known price shows cost \"unknown\"; totals say which models they leave out.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if days < 1 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--days %d: a number of days, at least 1", days)}
			}
			rep, err := insightsOf(ensureCtx(cmd.Context()), config.Home(e.getenv), days, time.Now())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			printInsights(e.stdout, rep)
			return nil
		},
	}
	cmd.Flags().IntVar(&days, "days", 30, "how many days back, today included")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// insightsOf reads the report from home's store; a home without one
// has no sessions, which is not an error.
func insightsOf(ctx context.Context, home string, days int, now time.Time) (insightsReport, error) {
	if _, err := os.Stat(filepath.Join(home, "state.db")); errors.Is(err, fs.ErrNotExist) {
		return buildInsights(ctx, nil, days, now)
	}
	st, err := openStore(home, nil)
	if err != nil {
		return insightsReport{}, err
	}
	defer st.Close()
	rep, err := buildInsights(ctx, st, days, now)
	if err != nil {
		return rep, &exitError{code: exitFailed, err: err}
	}
	return rep, nil
}

func printInsights(w io.Writer, rep insightsReport) {
	fmt.Fprintf(w, "Sessions started in the last %d days (since %s)\n", rep.Days, rep.Since.Format(time.DateOnly))
	if rep.Total.Sessions == 0 {
		fmt.Fprintln(w, "No sessions.")
		return
	}
	section := func(title, col string, rows []usageRow, key func(usageRow) string) {
		fmt.Fprintf(w, "\nBy %s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tsessions\tcalls\tinput\tcache read\tcache write\toutput\tcost\t\n", col)
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", key(r), r.Sessions, r.APICalls, r.InputTokens,
				r.CacheReadTokens, r.CacheWriteTokens, r.OutputTokens, rowCost(r))
		}
		tw.Flush()
	}
	section("day", "day", rep.ByDay, func(r usageRow) string { return r.Day })
	section("model", "model", rep.ByModel, func(r usageRow) string { return r.Model })
	section("source", "source", rep.BySource, func(r usageRow) string { return r.Source })
	t := rep.Total
	fmt.Fprintf(w, "\nTotal: %d sessions, %d calls, %d input tokens (%d cache read, %d cache write), %d output tokens; cost %s\n",
		t.Sessions, t.APICalls, t.InputTokens, t.CacheReadTokens, t.CacheWriteTokens, t.OutputTokens, rowCost(t))
	if len(t.UnpricedModels) > 0 {
		fmt.Fprintf(w, "The cost excludes %s: no known price.\n", strings.Join(t.UnpricedModels, ", "))
	}
}

// rowCost is a row's cost for a person: "unknown" when nothing in it has
// a price, the priced part marked "+ unknown" when some of it has none.
func rowCost(r usageRow) string {
	switch {
	case r.CostUSD == nil && len(r.UnpricedModels) > 0:
		return "unknown"
	case r.CostUSD == nil:
		return pricing.USD(0)
	case len(r.UnpricedModels) > 0:
		return pricing.USD(*r.CostUSD) + " + unknown"
	}
	return pricing.USD(*r.CostUSD)
}
