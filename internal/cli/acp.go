package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

func newACPCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "acp",
		Short: "Serve the agent to an editor over the Agent Client Protocol (stdio)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return &exitError{code: exitFailed, err: errors.New("not built yet")}
		},
	}
}
