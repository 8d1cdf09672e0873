package cli

import (
	"github.com/spf13/cobra"
)

func newGatewayCmd(e *env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run the gateway: the platforms enabled in config.yaml",
		Long: "hermes gateway runs, in the foreground, every chat platform config.yaml enables (Telegram, Slack,\n" +
			"Discord, Matrix, email, Signal, Mattermost: gateway.platforms.<name>, or their variables such as\n" +
			"TELEGRAM_BOT_TOKEN), the OpenAI-compatible API server when gateway.api_server.enabled (or\n" +
			"API_SERVER_ENABLED=true) or any webhook route is configured, and the cron scheduler, on one runtime.\n" +
			"Each chat is a conversation; people not in a platform's allowed_users get a pairing code (hermes pairing).\n" +
			"SIGTERM or Ctrl-C drains: running turns finish, their replies are delivered, and it exits 0.\n" +
			"hermes gateway status says how each platform is connected; hermes gateway setup PLATFORM configures one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(e, f)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			return runGateway(cmd.Context(), e, f, cfg)
		},
	}
	addProviderFlags(cmd.Flags(), f)
	cmd.AddCommand(newGatewayStatusCmd(e), newGatewaySetupCmd(e))
	return cmd
}
