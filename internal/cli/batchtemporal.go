package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/config"
)

type temporalFlags struct {
	address   string
	namespace string
	queue     string
}

func addTemporalFlags(fs *pflag.FlagSet, f *temporalFlags) {
	fs.StringVar(&f.address, "temporal", "127.0.0.1:7233", "Temporal frontend HOST:PORT (--engine temporal)")
	fs.StringVar(&f.namespace, "namespace", "default", "Temporal namespace")
	fs.StringVar(&f.queue, "task-queue", "hermes-batch", "Temporal task queue the workers poll")
}

func newTemporalEngine(ctx context.Context, e *env, f *batchFlags, cfg *config.Config) (batch.Engine, error) {
	return nil, &exitError{code: exitUsage, err: fmt.Errorf("--engine temporal: not built yet")}
}

func newBatchWorkerCmd(e *env) *cobra.Command {
	return &cobra.Command{Use: "worker", Short: "Run a Temporal worker for hermes batch --engine temporal"}
}
