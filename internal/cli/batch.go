package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/batch"
)

// batchFlags are hermes batch's flags.
type batchFlags struct {
	run           runFlags
	dataset       string
	runName       string
	dir           string
	workers       int
	distribution  string
	listDists     bool
	resume        bool
	seed          uint64
	memory        bool
	keepWorkspace bool
	maxSamples    int
	engine        string
	temporal      temporalFlags
}

// newBatchCmd is `hermes batch`: many prompts, one trajectory each.
func newBatchCmd(e *env) *cobra.Command {
	f := &batchFlags{}
	cmd := &cobra.Command{
		Use:   "batch --dataset prompts.jsonl --run-name NAME",
		Short: "Run every prompt of a JSONL dataset and save ShareGPT trajectories in data/NAME",
		Long: "Runs each line {\"prompt\": ..., \"cwd\"?: ...} of the dataset in its own workspace and session, under the sandbox,\n" +
			"--workers at a time. Nobody approves in a batch: dangerous commands are denied. Memory and context files are off\n" +
			"unless --memory. Output: data/NAME/trajectories.jsonl (one line per prompt, synced as it is written),\n" +
			"errors.jsonl (prompts that could not run), checkpoint.json and statistics.json. --resume after a crash or\n" +
			"Ctrl-C runs only the prompts without a trajectory.\n\n" +
			"--engine temporal submits each prompt as a Temporal workflow instead; run workers with `hermes batch worker`.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.listDists {
				return listDistributions(e.stdout)
			}
			return runBatch(cmd.Context(), e, f)
		},
	}
	fs := cmd.Flags()
	addProviderFlags(fs, &f.run)
	fs.StringVar(&f.dataset, "dataset", "", "JSONL file, one {\"prompt\": ...} per line")
	fs.StringVar(&f.runName, "run-name", "", "name of the run: its output goes to data/NAME")
	fs.StringVar(&f.dir, "output-dir", "", "directory of the run's files (default data/NAME)")
	fs.IntVar(&f.workers, "workers", 4, "prompts run at once")
	fs.IntVar(&f.run.maxTurns, "max-turns", 0, "iteration budget per prompt (default agent.max_turns)")
	fs.StringVar(&f.run.toolsets, "toolsets", "", "comma-separated toolsets on for every prompt (default: all but clarify and session_search)")
	fs.StringVar(&f.distribution, "distribution", "", "sample toolsets per prompt from a named distribution (see --list-distributions)")
	fs.BoolVar(&f.listDists, "list-distributions", false, "list the toolset distributions and exit")
	fs.BoolVar(&f.resume, "resume", false, "finish an interrupted run: run only the prompts without a trajectory")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the toolset sampling (default: from the run name, so --resume samples the same)")
	fs.BoolVar(&f.memory, "memory", false, "give prompts memory and context files (off by default: they leak between prompts)")
	fs.BoolVar(&f.keepWorkspace, "keep-workspaces", false, "keep each prompt's workspace (data/NAME/workspaces/N) after it ends")
	fs.IntVar(&f.maxSamples, "max-samples", 0, "run only the first N prompts of the dataset")
	fs.StringVar(&f.run.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access")
	fs.StringVar(&f.run.effort, "reasoning-effort", "", "reasoning effort: none, low, medium, high")
	fs.StringVar(&f.engine, "engine", "local", "local (this process) or temporal (a workflow per prompt, run by `hermes batch worker`)")
	addTemporalFlags(fs, &f.temporal)
	addActivityFlags(fs, &f.temporal)
	cmd.AddCommand(newBatchWorkerCmd(e))
	return cmd
}

func listDistributions(w io.Writer) error {
	for _, d := range batch.Distributions {
		fmt.Fprintf(w, "%s: %s\n", d.Name, d.Description)
		if d.Toolsets == nil {
			fmt.Fprintln(w, "    every toolset: 100%")
		}
		cs := slices.Clone(d.Toolsets)
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Percent > cs[j].Percent })
		for _, c := range cs {
			fmt.Fprintf(w, "    %-10s %3.0f%%\n", c.Toolset, c.Percent)
		}
	}
	return nil
}

func runBatch(ctx context.Context, e *env, f *batchFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.dataset == "" || f.runName == "" {
		return &exitError{code: exitUsage, err: fmt.Errorf("hermes batch needs --dataset FILE and --run-name NAME")}
	}
	if f.workers < 1 {
		return &exitError{code: exitUsage, err: fmt.Errorf("--workers: %d is not allowed (at least 1)", f.workers)}
	}
	prompts, err := batch.ReadDataset(f.dataset)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if f.maxSamples > 0 && f.maxSamples < len(prompts) {
		prompts = prompts[:f.maxSamples]
	}
	cfg, err := loadConfig(e, &f.run)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	opts := app.Options{Getenv: e.getenv, NoStream: f.run.noStream, OnWarning: func(string) {}}
	var engine batch.Engine
	probeCfg := cfg
	switch f.engine {
	case "local":
	case "temporal":
		// The workers call the model, with their own keys: this process
		// only lists the tools, against a stand-in endpoint.
		probeCfg = batch.ProbeConfig(cfg)
		engine, err = newTemporalEngine(ctx, e, f, cfg)
		if err != nil {
			return err
		}
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("--engine: %q is not local or temporal", f.engine)}
	}
	if c, ok := engine.(io.Closer); ok {
		defer c.Close()
	}
	// One runtime for the whole run: each prompt is a conversation on it.
	rt, err := batch.NewRuntime(ctx, probeCfg, opts)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	known, universe, err := batch.Probe(ctx, rt, f.memory)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	if f.engine == "local" {
		engine = &batch.Local{Runtime: rt, Memory: f.memory}
	}
	if f.engine == "local" {
		if p, err := app.SandboxPolicy(cfg, ".", e.getenv); err == nil {
			if st := p.Enforcement(); st.Short() {
				e.warn(st) // what the prompts' commands run without
			}
		}
	}
	seed := f.seed
	if seed == 0 {
		seed = batch.SeedFor(f.runName)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := batch.Run(ctx, batch.Options{
		Prompts: prompts, RunName: f.runName, Dir: f.dir, Workers: f.workers, Resume: f.resume,
		Distribution: f.distribution, Toolsets: f.run.toolsetList(), Known: known, Universe: universe,
		Seed: seed, Model: cfg.Model.Name, KeepWorkspace: f.keepWorkspace, Engine: engine,
		Progress: e.stderr, Terminal: writerIsTerminal(e.stderr), Now: time.Now,
	})
	if err != nil && sum == nil {
		return &exitError{code: exitUsage, err: err}
	}
	st := sum.Statistics
	fmt.Fprintf(e.stdout, "%s: %d/%d prompts have trajectories (%d completed, %d partial, %d failed); %d ran now, %d errors, %d remaining. %s/%s\n",
		f.runName, st.Trajectories, st.TotalPrompts, st.Completed, st.Partial, st.Failed, sum.Ran, st.Errors, st.Remaining,
		sum.Dir, batch.TrajectoriesFile)
	switch {
	case err != nil:
		return &exitError{code: exitFailed, err: err}
	case sum.Interrupted:
		return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted: run again with --resume to finish the %d remaining prompts", st.Remaining)}
	case st.Remaining > 0:
		return &exitError{code: exitFailed, err: fmt.Errorf("%d prompts could not run (see %s/%s); --resume tries them again", st.Remaining, sum.Dir, batch.ErrorsFile)}
	}
	return nil
}

func writerIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
