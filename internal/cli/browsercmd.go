package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
)

// newBrowserCmd is `hermes browser status`: the browser the browser
// tools would drive, or why there is none. It exits 1 when there is none.
func newBrowserCmd(e *env) *cobra.Command {
	var asJSON bool
	status := &cobra.Command{
		Use: "status", Short: "Show which browser the browser tools would use, or why none", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := app.LoadConfig(e.getenv)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			st := app.FindBrowser(cfg, e.getenv)
			if asJSON {
				if err := printJSON(e.stdout, st); err != nil {
					return err
				}
			} else {
				printBrowser(e, st)
			}
			if !st.Available {
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	root := &cobra.Command{Use: "browser", Short: "The browser the browser tools drive"}
	root.AddCommand(status)
	return root
}

func printBrowser(e *env, st app.BrowserStatus) {
	w := e.stdout
	switch {
	case !st.Available:
		fmt.Fprintf(w, "browser         none: %s\n", st.Reason)
		fmt.Fprintln(w, "                the browser tools are not offered")
		return
	case st.CDPURL != "":
		fmt.Fprintf(w, "browser         attach to %s (%s); its own profile is used\n", st.CDPURL, st.Source)
	default:
		fmt.Fprintf(w, "browser         %s (%s), started per conversation with a fresh profile\n", st.Path, st.Source)
	}
	idle := "until the conversation ends"
	if st.IdleTimeout > 0 {
		idle = fmt.Sprintf("closed after %d s unused", st.IdleTimeout)
	}
	fmt.Fprintf(w, "idle            %s\n", idle)
	fmt.Fprintf(w, "headless        %v\n", st.Headless)
	net := "local and private addresses refused (web.allow_private: false)"
	if st.AllowPrivate {
		net = "local and private addresses allowed (web.allow_private); cloud metadata refused"
	}
	fmt.Fprintf(w, "network         %s\n", net)
	fmt.Fprintln(w, "offered         in chats; elsewhere with --toolsets browser")
}
