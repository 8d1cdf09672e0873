package cli

import (
	"errors"
	"net"
	"strconv"

	"github.com/spf13/cobra"
)

func newGatewayCmd(e *env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the gateway: the platforms enabled in config.yaml",
		Long: "hermes gateway runs the platforms config.yaml enables. This build has one: the OpenAI-compatible\n" +
			"API server (gateway.api_server.enabled: true, or API_SERVER_ENABLED=true), configured by\n" +
			"gateway.api_server.* as for hermes serve.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(e, f)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			a := cfg.Gateway.APIServer
			if !a.Enabled {
				return &exitError{code: exitUsage, err: errors.New("no gateway platform is enabled: set gateway.api_server.enabled: true in config.yaml (or API_SERVER_ENABLED=true), or run hermes serve")}
			}
			return serveAPI(cmd.Context(), e, f, cfg, net.JoinHostPort(a.Host, strconv.Itoa(a.Port)), a.AllowPublic)
		},
	}
	addProviderFlags(cmd.Flags(), f)
	cmd.AddCommand(newGatewayStatusCmd(e), newGatewaySetupCmd(e))
	return cmd
}
