package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
)

// newAuthCmd is `hermes auth add|list|remove`: the key pools, several keys
// for one provider that calls rotate through when one is rate-limited or
// refused.
func newAuthCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "auth",
		Short: "Pool several API keys for a provider: add, list (masked, with their state) and remove them",
		Long: "Keys added with hermes auth add are kept in $HERMES_HOME/auth.json (mode 0600); the key the\n" +
			"environment or .env gives a provider is the pool's first member. A call whose key is rate-limited\n" +
			"moves to the next key at once, and the limited key rests until its reset time (Retry-After,\n" +
			"X-RateLimit-Reset), then comes back on its own; a key the provider refuses (401/403) is skipped.\n" +
			"fallback_providers take over only when every key of the provider is out.",
	}
	root.AddCommand(newAuthAddCmd(e), newAuthListCmd(e), newAuthRemoveCmd(e))
	return root
}

// providerID checks that id names a built-in provider or one of
// config.yaml's providers, and returns its canonical id.
func providerID(cfg *config.Config, id string) (string, error) {
	if s, ok := provider.Lookup(id); ok {
		return s.ID, nil
	}
	if _, ok := cfg.Providers[id]; ok {
		return id, nil
	}
	var known []string
	for _, s := range provider.Providers() {
		known = append(known, s.ID)
	}
	return "", fmt.Errorf("unknown provider %q: use one of %s, or one described under providers: in config.yaml", id, strings.Join(known, ", "))
}

func poolPath(cfg *config.Config) string { return filepath.Join(cfg.Home, provider.PoolFileName) }

func newAuthAddCmd(e *env) *cobra.Command {
	var label string
	c := &cobra.Command{
		Use:   "add PROVIDER",
		Short: "Add a key to PROVIDER's pool: typed without echo on a terminal, else read from standard input",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			id, err := providerID(cfg, args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			key, err := readKey(e, id)
			if err != nil {
				return err
			}
			var added provider.StoredKey
			var replaced bool
			err = provider.UpdatePoolFile(poolPath(cfg), func(f *provider.PoolFile) error {
				keys := f.Providers[id]
				if i := slices.IndexFunc(keys, func(k provider.StoredKey) bool { return k.Key == key }); i >= 0 {
					// Added again: whatever was known of it starts afresh.
					added, replaced = keys[i], true
					delete(f.State[id], provider.Fingerprint(key))
					return nil
				}
				l := strings.TrimSpace(label)
				if l == "" {
					for n := len(keys) + 1; ; n++ {
						if l = fmt.Sprintf("key-%d", n); !slices.ContainsFunc(keys, func(k provider.StoredKey) bool { return k.Label == l }) {
							break
						}
					}
				}
				if slices.ContainsFunc(keys, func(k provider.StoredKey) bool { return k.Label == l }) {
					return &exitError{code: exitUsage, err: fmt.Errorf("%s's pool has a key labelled %q already: choose another --label", id, l)}
				}
				if _, err := strconv.Atoi(l); err == nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("label %q: a label may not be a number (numbers are positions for hermes auth remove)", l)}
				}
				added = provider.StoredKey{Label: l, Key: key, AddedAt: time.Now().UTC()}
				f.Providers[id] = append(keys, added)
				return nil
			})
			if err != nil {
				var ee *exitError
				if errors.As(err, &ee) {
					return ee
				}
				return &exitError{code: exitFailed, err: err}
			}
			if replaced {
				fmt.Fprintf(e.stdout, "That key is in %s's pool already as %s (%s); its state was reset\n", id, added.Label, maskKey(key))
				return nil
			}
			fmt.Fprintf(e.stdout, "Added %s to %s's pool as %s (%s)\n", maskKey(key), id, added.Label, poolPath(cfg))
			return nil
		},
	}
	c.Flags().StringVar(&label, "label", "", "a name for the key (default key-N)")
	return c
}

// readKey reads a key: on a terminal, without echo; otherwise the first
// line of standard input.
func readKey(e *env, id string) (string, error) {
	read := func() (string, error) {
		line, err := bufio.NewReader(e.stdin).ReadString('\n')
		if err != nil && line == "" {
			return "", err
		}
		return line, nil
	}
	var key string
	var err error
	if f, ok := e.stdin.(*os.File); ok && isTerminal(e.stdin) {
		fmt.Fprintf(e.stderr, "API key for %s (not shown): ", id)
		key, err = withoutEcho(f, read)
	} else {
		key, err = read()
	}
	key = strings.TrimSpace(key)
	if err != nil && key == "" {
		return "", &exitError{code: exitUsage, err: fmt.Errorf("reading the key from standard input: %w (pipe it in: hermes auth add %s < keyfile)", err, id)}
	}
	if key == "" {
		return "", &exitError{code: exitUsage, err: errors.New("no key given (nothing was added)")}
	}
	if strings.ContainsAny(key, " \t") {
		return "", &exitError{code: exitUsage, err: errors.New("the key holds spaces: give the key alone (nothing was added)")}
	}
	return key, nil
}

// maskKey shows at most a key's last four characters, and none of a
// short one.
func maskKey(k string) string {
	if len(k) < 16 {
		return "…"
	}
	return "…" + k[len(k)-4:]
}

// authRow is one key of hermes auth list --json.
type authRow struct {
	Provider string `json:"provider"`
	Index    int    `json:"index"`
	Label    string `json:"label"`
	// Source is "env" for the environment's or .env's key, "pool" for
	// one hermes auth add added.
	Source string    `json:"source"`
	Key    string    `json:"key"` // masked
	Status string    `json:"status"`
	Until  time.Time `json:"until,omitzero"`
}

func authRows(cmd *cobra.Command, e *env, cfg *config.Config, only string) ([]authRow, error) {
	pools, err := app.KeyPools(cmdContext(cmd), cfg, e.getenv)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(pools))
	for id := range pools {
		if only == "" || id == only {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	rows := []authRow{}
	for _, id := range ids {
		p := pools[id]
		for i, k := range p.Keys() {
			st := p.State(k.Key)
			src := "pool"
			if k.Env {
				src = "env"
			}
			rows = append(rows, authRow{Provider: id, Index: i + 1, Label: k.Label, Source: src, Key: maskKey(k.Key), Status: st.Status, Until: st.Until})
		}
	}
	return rows, nil
}

func newAuthListCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list [PROVIDER]",
		Short: "List the keys of each provider (masked) and their state: ok, cooling until a time, or refused",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			only := ""
			if len(args) == 1 {
				if only, err = providerID(cfg, args[0]); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
			}
			rows, err := authRows(cmd, e, cfg, only)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			if asJSON {
				return printJSON(e.stdout, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(e.stdout, "No keys. Add one with: hermes auth add PROVIDER (or set the provider's key variable in .env)")
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PROVIDER\t#\tLABEL\tKEY\tSTATUS")
			for _, r := range rows {
				status := r.Status
				if r.Status == provider.KeyCooling {
					status = "cooling until " + r.Until.Local().Format("15:04:05")
				}
				label := r.Label
				if r.Source == "env" {
					label += " (environment/.env)"
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", r.Provider, r.Index, label, r.Key, status)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func newAuthRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "remove PROVIDER LABEL|INDEX",
		Short: "Remove a key from PROVIDER's pool, by label or by its number in hermes auth list",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			id, err := providerID(cfg, args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			rows, err := authRows(cmd, e, cfg, id)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			which := args[1]
			i := slices.IndexFunc(rows, func(r authRow) bool { return r.Label == which || strconv.Itoa(r.Index) == which })
			if i < 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s's pool has no key %q (hermes auth list %s shows them)", id, which, id)}
			}
			row := rows[i]
			if row.Source == "env" {
				return &exitError{code: exitFailed, err: fmt.Errorf("key %d of %s comes from %s in the environment or %s: remove it there", row.Index, id, row.Label, filepath.Join(cfg.Home, ".env"))}
			}
			err = provider.UpdatePoolFile(poolPath(cfg), func(f *provider.PoolFile) error {
				keys := f.Providers[id]
				j := slices.IndexFunc(keys, func(k provider.StoredKey) bool { return k.Label == row.Label })
				if j < 0 {
					return fmt.Errorf("%s's pool changed meanwhile: key %q is gone already", id, row.Label)
				}
				delete(f.State[id], provider.Fingerprint(keys[j].Key))
				f.Providers[id] = slices.Delete(keys, j, j+1)
				if len(f.Providers[id]) == 0 {
					delete(f.Providers, id)
					delete(f.State, id)
				}
				return nil
			})
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "Removed %s (%s) from %s's pool\n", row.Label, row.Key, id)
			return nil
		},
	}
}
