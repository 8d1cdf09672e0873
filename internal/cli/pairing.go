package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway"
	"github.com/spf13/cobra"
)

// newPairingCmd is `hermes pairing list|approve|revoke`: the chat users
// the owner let in by approving the code the gateway gave them.
func newPairingCmd(e *env) *cobra.Command {
	path := func() string { return gateway.StorePath(config.Home(e.getenv)) }
	// open opens the gateway's database; a missing one is not created
	// (nil, nil): these commands read it or change what is in it.
	open := func() (*gateway.Store, error) {
		p := path()
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		st, err := gateway.OpenStore(p, time.Now)
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		return st, nil
	}
	root := &cobra.Command{
		Use:   "pairing",
		Short: "List, approve and revoke the chat users paired with the gateway",
		Long: "A person the gateway's allowlists do not name gets one reply holding a pairing code (8 characters,\n" +
			"valid one hour; at most 3 wait per platform). Approve it here to let them in on that platform.\n" +
			"Five wrong codes lock a platform's approvals for an hour. Revoking removes a paired user;\n" +
			"users named in config.yaml or the *_ALLOWED_USERS variables are not affected.",
	}

	var asJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List the codes waiting for approval and the approved users", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := open()
			if err != nil {
				return err
			}
			p := gateway.Pairings{Pending: []gateway.PendingPairing{}, Approved: []gateway.PairedUser{}}
			if st != nil {
				defer st.Close()
				if p, err = st.Pairings(ctxOr(cmd.Context())); err != nil {
					return &exitError{code: exitFailed, err: err}
				}
			}
			if asJSON {
				return jsonEncoder(e.stdout).Encode(p)
			}
			printPairings(e, p)
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	approve := &cobra.Command{
		Use: "approve PLATFORM CODE", Short: "Let in the user who was given CODE (XXXX-XXXX, any case)", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			platform, code := strings.ToLower(args[0]), args[1]
			st, err := open()
			if err != nil {
				return err
			}
			if st == nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("no %s pairing request has code %s: the gateway has not given any code yet (no %s)", platform, code, path())}
			}
			defer st.Close()
			user, err := st.ApprovePairing(ctxOr(cmd.Context()), platform, code)
			var locked *gateway.PairingLockedError
			isLocked := errors.As(err, &locked)
			switch {
			case errors.Is(err, gateway.ErrPairingCode):
				msg := fmt.Sprintf("no pending %s pairing request has code %s: it is wrong or has expired (codes last an hour; the person gets a new one by writing to the bot again; `hermes pairing list` shows those waiting)", platform, code)
				if isLocked {
					msg += fmt.Sprintf("; that made %d wrong codes in a row: approvals on %s are locked until %s", gateway.MaxPairingFailures, platform, locked.Until.Local().Format("15:04"))
				}
				return &exitError{code: exitFailed, err: errors.New(msg)}
			case isLocked:
				return &exitError{code: exitFailed, err: fmt.Errorf("approvals on %s are locked until %s after %d wrong codes in a row; try again then", platform, locked.Until.Local().Format("15:04"), gateway.MaxPairingFailures)}
			case err != nil:
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "Approved %s user %s%s: they can talk to the gateway now.\n", platform, user, nameOf(ctxOr(cmd.Context()), st, platform, user))
			return nil
		},
	}

	revoke := &cobra.Command{
		Use: "revoke PLATFORM USER_ID", Short: "Remove a paired user", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			platform, user := strings.ToLower(args[0]), args[1]
			st, err := open()
			if err != nil {
				return err
			}
			if st == nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s user %s is not paired: the gateway has paired nobody yet (no %s)", platform, user, path())}
			}
			defer st.Close()
			err = st.RevokePairing(ctxOr(cmd.Context()), platform, user)
			if errors.Is(err, gateway.ErrNotPaired) {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s user %s is not paired (`hermes pairing list` shows who is)", platform, user)}
			}
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "Revoked %s user %s: the gateway no longer answers them (unless an allowlist names them).\n", platform, user)
			return nil
		},
	}
	root.AddCommand(list, approve, revoke)
	return root
}

func printPairings(e *env, p gateway.Pairings) {
	w := e.stdout
	if len(p.Pending) == 0 {
		fmt.Fprintln(w, "No pairing requests are waiting.")
	} else {
		fmt.Fprintln(w, "Waiting for approval (hermes pairing approve PLATFORM CODE):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PLATFORM\tCODE\tUSER ID\tNAME\tEXPIRES")
		for _, r := range p.Pending {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Platform, gateway.FormatPairingCode(r.Code), r.UserID, r.UserName, r.ExpiresAt.Local().Format("2006-01-02 15:04"))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	if len(p.Approved) == 0 {
		fmt.Fprintln(w, "No users are paired.")
		return
	}
	fmt.Fprintln(w, "Paired users:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PLATFORM\tUSER ID\tNAME\tAPPROVED")
	for _, u := range p.Approved {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Platform, u.UserID, u.UserName, u.ApprovedAt.Local().Format("2006-01-02 15:04"))
	}
	tw.Flush()
}

// nameOf returns " (name)" for an approved user with a name, or "".
func nameOf(ctx context.Context, st *gateway.Store, platform, user string) string {
	p, err := st.Pairings(ctx)
	if err != nil {
		return ""
	}
	for _, u := range p.Approved {
		if u.Platform == platform && u.UserID == user && u.UserName != "" {
			return " (" + u.UserName + ")"
		}
	}
	return ""
}
