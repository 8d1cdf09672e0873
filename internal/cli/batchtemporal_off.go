//go:build !temporal

package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/config"
)

// errNoTemporal is the answer of a build without the Temporal engine.
var errNoTemporal = errors.New("this hermes was built without the Temporal engine; build it with: go build -tags temporal ./cmd/hermes")

func newTemporalEngine(ctx context.Context, e *env, f *batchFlags, cfg *config.Config) (batch.Engine, error) {
	return nil, &exitError{code: exitUsage, err: errNoTemporal}
}

func newBatchWorkerCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "worker --temporal HOST:PORT",
		Short: "Run prompts of hermes batch --engine temporal on this machine (needs a build with -tags temporal)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{code: exitUsage, err: errNoTemporal}
		},
		DisableFlagParsing: true,
	}
}
