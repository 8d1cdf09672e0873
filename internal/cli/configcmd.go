package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v4"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
)

func newConfigCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show, read, change and check config.yaml by dotted keys (terminal.timeout, web.allow_private)",
		Long: "hermes config reads and changes $HERMES_HOME/config.yaml by dotted keys. Every change keeps the\n" +
			"file's comments and layout and is checked before the file is replaced: a value that is refused\n" +
			"leaves the file as it was, and the error says why. A key that holds a secret (api_key, a platform's\n" +
			"token, gateway.api_server.key) is written to $HERMES_HOME/.env instead, readable by you only.",
		Example: "  hermes config show\n  hermes config get terminal.timeout\n  hermes config set terminal.timeout 300\n" +
			"  hermes config set web.allow_private true\n  hermes config set providers.local.base_url http://127.0.0.1:8080/v1\n" +
			"  hermes config set api_key sk-...        # goes to .env\n  hermes config unset terminal.timeout\n" +
			"  hermes config edit\n  hermes config check",
		Args: cobra.NoArgs,
	}
	c.AddCommand(newConfigShowCmd(e), newConfigGetCmd(e), newConfigSetCmd(e), newConfigUnsetCmd(e),
		newConfigEditCmd(e), newConfigPathCmd(e), newConfigCheckCmd(e))
	return c
}

// configPaths are HERMES_HOME's config.yaml and .env.
func configPaths(e *env) (home, cfgPath, envPath string) {
	home = config.Home(e.getenv)
	return home, filepath.Join(home, "config.yaml"), filepath.Join(home, ".env")
}

// settings is the configuration in effect (file, environment, defaults)
// as a document, secrets masked unless reveal.
func settings(cfg *config.Config, reveal bool) (map[string]any, error) {
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if !reveal {
		maskSecrets(m, "")
	}
	return m, nil
}

// maskSecrets hides the values of secret keys in a settings document.
func maskSecrets(m map[string]any, prefix string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		switch v := v.(type) {
		case map[string]any:
			maskSecrets(v, key)
		case string:
			if v != "" && config.IsSecretKey(key) {
				m[k] = mask(v)
			}
		}
	}
}

// mask shows a secret's last four characters at most.
func mask(v string) string {
	if len(v) < 12 {
		return "********"
	}
	return "********" + v[len(v)-4:]
}

func newConfigShowCmd(e *env) *cobra.Command {
	var asJSON, reveal bool
	c := &cobra.Command{
		Use:   "show",
		Short: "Print every setting in effect (the file over the defaults), secrets masked",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			m, err := settings(cfg, reveal)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if asJSON {
				return writeJSON(e, map[string]any{"path": filepath.Join(cfg.Home, "config.yaml"), "exists": cfg.Path != "", "settings": m})
			}
			head := "# settings in effect: " + cfg.Path + " over the environment and the defaults"
			if cfg.Path == "" {
				head = "# settings in effect: no config.yaml yet, so the environment and the defaults"
			}
			fmt.Fprintln(e.stdout, head)
			return writeYAML(e, m)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"path", "exists", "settings"} as JSON`)
	c.Flags().BoolVar(&reveal, "reveal", false, "print secrets as they are")
	return c
}

func writeJSON(e *env, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	_, err = fmt.Fprintln(e.stdout, string(b))
	return err
}

func newConfigGetCmd(e *env) *cobra.Command {
	var asJSON, reveal bool
	c := &cobra.Command{
		Use:   "get KEY",
		Short: "Print one setting's value alone (a list or section as YAML); secrets masked unless --reveal",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[0]
			if _, err := config.SettingType(key); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			m, err := settings(cfg, reveal)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			var v any
			if key == "model" {
				v = cfg.Model.Name
			} else {
				v = lookupSetting(m, strings.Split(key, "."))
			}
			if s, _ := v.(string); s == "" && config.IsSecretKey(key) {
				v = secretFromEnv(e, cfg, key, reveal) // the secret is where set put it
			}
			if asJSON {
				b, _ := json.Marshal(v)
				fmt.Fprintln(e.stdout, string(b))
				return nil
			}
			switch v := v.(type) {
			case nil:
				fmt.Fprintln(e.stdout)
			case map[string]any, []any:
				return writeYAML(e, v)
			default:
				fmt.Fprintln(e.stdout, v)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the value as JSON")
	c.Flags().BoolVar(&reveal, "reveal", false, "print a secret as it is")
	return c
}

func lookupSetting(m map[string]any, keys []string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func newConfigSetCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set a dotted key, keeping the file's comments; checked before saving (a secret goes to .env)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, value := args[0], args[1]
			if _, err := config.SettingType(key); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			_, cfgPath, _ := configPaths(e)
			if config.IsSecretKey(key) {
				return setSecret(e, key, value, asJSON)
			}
			if key == "toolsets" {
				if err := checkToolsetNames(e, value); err != nil {
					return err
				}
			}
			if err := config.SetKey(cfgPath, key, value); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("%w\n%s was not changed.", err, cfgPath)}
			}
			if asJSON {
				return writeJSON(e, map[string]any{"ok": true, "key": key, "file": cfgPath})
			}
			fmt.Fprintf(e.stdout, "Set %s in %s.\n", key, cfgPath)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"ok", "key", "file"} as JSON`)
	return c
}

// setSecret writes a secret key's value to .env, in the variable that
// key is read from, and takes a copy of it out of config.yaml (the
// file's would win or leak).
func setSecret(e *env, key, value string, asJSON bool) error {
	cfg, err := loadForEdit(e)
	if err != nil {
		return err
	}
	_, cfgPath, envPath := configPaths(e)
	name := config.SecretVariable(key, cfg)
	var changes []config.Change
	switch {
	case key == "api_key":
		id := normalizeProvider(cfg.Provider)
		if id == "" || id == "auto" {
			return &exitError{code: exitUsage, err: errors.New("api_key belongs to a provider: set provider first (hermes config set provider openrouter), or run hermes setup model")}
		}
		var setEnv bool
		if name, setEnv = keyVariable(cfg, id); setEnv {
			changes = append(changes, config.Change{Key: "providers." + id + ".key_env", Value: name})
		}
	case name == "":
		return &exitError{code: exitUsage, err: fmt.Errorf("%s holds a secret, which belongs in %s: set its variable there (no variable is known for this key)", key, envPath)}
	case strings.HasPrefix(key, "webhooks.routes."):
		changes = append(changes, config.Change{Key: strings.TrimSuffix(key, ".secret") + ".secret_env", Value: name})
	}
	b, _ := os.ReadFile(cfgPath)
	var doc map[string]any
	_ = yaml.Unmarshal(b, &doc)
	if lookupSetting(doc, strings.Split(key, ".")) != nil {
		changes = append(changes, config.Change{Key: key, Unset: true})
	}
	if len(changes) > 0 {
		if _, err := config.EditKeys(b, cfgPath, changes...); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	if err := config.SetDotEnv(envPath, map[string]string{name: value}); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if len(changes) > 0 {
		if err := config.SetKeys(cfgPath, changes...); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	if v := e.getenv(name); v != "" && v != value {
		e.warn(fmt.Sprintf("%s is set in the environment to another value, which wins over %s", name, envPath))
	}
	if asJSON {
		return writeJSON(e, map[string]any{"ok": true, "key": key, "file": envPath, "variable": name, "secret": true})
	}
	fmt.Fprintf(e.stdout, "%s holds a secret: wrote %s to %s (readable by you only), not to config.yaml.\n", key, name, envPath)
	return nil
}

func newConfigUnsetCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a dotted key from config.yaml (its default applies again); the other lines stay",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := args[0]
			if _, err := config.SettingType(key); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			_, cfgPath, envPath := configPaths(e)
			// A secret's variable is named by the configuration as it
			// stands before the key goes (providers.X.key_env, a route's
			// secret_env).
			variable := ""
			if config.IsSecretKey(key) {
				cfg, err := loadForEdit(e)
				if err != nil {
					return err
				}
				variable = config.SecretVariable(key, cfg)
				if key == "api_key" {
					if id := normalizeProvider(cfg.Provider); id != "" && id != "auto" {
						variable, _ = keyVariable(cfg, id)
					}
				}
			}
			if err := config.UnsetKey(cfgPath, key); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("%w\n%s was not changed.", err, cfgPath)}
			}
			removed := false
			if variable != "" {
				var err error
				if removed, err = config.UnsetDotEnv(envPath, variable); err != nil {
					return &exitError{code: exitFailed, err: fmt.Errorf("removed %s from %s, but not %s from %s: %w", key, cfgPath, variable, envPath, err)}
				}
			}
			if asJSON {
				out := map[string]any{"ok": true, "key": key, "file": cfgPath}
				if removed {
					out["variable"], out["env_file"] = variable, envPath
				}
				return writeJSON(e, out)
			}
			fmt.Fprintf(e.stdout, "Removed %s from %s.\n", key, cfgPath)
			if removed {
				fmt.Fprintf(e.stdout, "Removed %s from %s.\n", variable, envPath)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"ok", "key", "file"} as JSON`)
	return c
}

func newConfigPathCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "path",
		Short: "Print config.yaml's path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			home, cfgPath, envPath := configPaths(e)
			if asJSON {
				return writeJSON(e, map[string]any{"home": home, "config": cfgPath, "env": envPath})
			}
			fmt.Fprintln(e.stdout, cfgPath)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"home", "config", "env"} as JSON`)
	return c
}

// checkFile checks config.yaml as hermes would load it: the problems
// (each a line) and the warnings.
func checkFile(e *env) (path string, problems, warnings []string, err error) {
	home, path, _ := configPaths(e)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil, nil, nil
	}
	if err != nil {
		return path, nil, nil, err
	}
	getenv, err := homeEnv(e, home)
	if err != nil {
		return path, nil, nil, err
	}
	cfg, err := config.Check(home, path, b, getenv)
	if err != nil {
		return path, strings.Split(err.Error(), "\n"), nil, nil
	}
	return path, nil, cfg.Warnings, nil
}

func newConfigCheckCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "check",
		Short: "Check config.yaml; exit 1 with the reasons when hermes would refuse it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, problems, warnings, err := checkFile(e)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if asJSON {
				if err := writeJSON(e, map[string]any{"ok": len(problems) == 0, "path": path,
					"errors": nonNil(problems), "warnings": nonNil(warnings)}); err != nil {
					return err
				}
			} else {
				for _, w := range warnings {
					e.warn(w)
				}
				if len(problems) == 0 {
					fmt.Fprintf(e.stdout, "%s is valid.\n", path)
				}
			}
			if len(problems) > 0 {
				if asJSON {
					return &exitError{code: exitFailed}
				}
				return &exitError{code: exitFailed, err: errors.New(strings.Join(problems, "\n"))}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"ok", "path", "errors", "warnings"} as JSON`)
	return c
}

func newConfigEditCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "edit",
		Short: "Open config.yaml in $VISUAL or $EDITOR, then check it (an invalid file is restored)",
		Long: "hermes config edit opens config.yaml in $VISUAL, else $EDITOR, else vi, and checks the file when\n" +
			"the editor exits. When hermes would refuse it, the reasons are shown and, on a terminal, you may\n" +
			"edit it again; otherwise (or when you decline) the previous file is put back as it was.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConfigEdit(e)
		},
	}
	return c
}

func runConfigEdit(e *env) error {
	_, path, _ := configPaths(e)
	before, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return &exitError{code: exitFailed, err: err}
	}
	if !existed {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		if err := os.WriteFile(path, []byte("# hermes settings: see `hermes config show` for every key and its value\n"), 0o600); err != nil {
			return &exitError{code: exitFailed, err: err}
		}
	}
	restore := func() error {
		if !existed {
			return os.Remove(path)
		}
		return os.WriteFile(path, before, 0o600)
	}
	editor := firstOf(e.getenv("VISUAL"), e.getenv("EDITOR"), "vi")
	in := bufio.NewReader(e.stdin)
	for {
		ed := exec.Command("sh", "-c", editor+` "$1"`, "sh", path)
		ed.Stdin, ed.Stdout, ed.Stderr = e.stdin, e.stdout, e.stderr
		if f, ok := e.stdin.(*os.File); ok {
			ed.Stdin = f
		}
		if err := ed.Run(); err != nil {
			_ = restore()
			return &exitError{code: exitFailed, err: fmt.Errorf("editor %q: %w; the previous file was put back", editor, err)}
		}
		_, problems, warnings, err := checkFile(e)
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		for _, w := range warnings {
			e.warn(w)
		}
		if len(problems) == 0 {
			fmt.Fprintf(e.stdout, "%s is valid.\n", path)
			return nil
		}
		fmt.Fprintf(e.stderr, "hermes would refuse this file:\n%s\n", strings.Join(problems, "\n"))
		if isTerminal(e.stdin) {
			fmt.Fprint(e.stderr, "Edit it again? [Y/n] (n puts the previous file back) ")
			line, _ := in.ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a == "" || a == "y" || a == "yes" {
				continue
			}
		}
		if err := restore(); err != nil {
			return &exitError{code: exitFailed, err: fmt.Errorf("putting the previous file back: %w", err)}
		}
		return &exitError{code: exitFailed, err: fmt.Errorf("%s was invalid; the previous file was put back as it was", path)}
	}
}

// checkToolsetNames refuses a toolsets value naming a toolset hermes
// does not have (which hermes would refuse at start).
func checkToolsetNames(e *env, value string) error {
	cfg, err := loadForEdit(e)
	if err != nil {
		return err
	}
	known := append(app.Toolsets(cfg), "all")
	for _, n := range strings.FieldsFunc(strings.Trim(value, "[] "), func(r rune) bool { return r == ',' || r == ' ' }) {
		if n = strings.Trim(n, `"'`); !slices.Contains(known, n) {
			return &exitError{code: exitFailed, err: fmt.Errorf("toolsets: no toolset %q (toolsets: %s)\n%s was not changed.", n, strings.Join(known, ", "), filepath.Join(cfg.Home, "config.yaml"))}
		}
	}
	return nil
}

// secretFromEnv is the value of the variable a secret key is read from
// (environment, then .env), masked unless reveal; nil when none is set.
func secretFromEnv(e *env, cfg *config.Config, key string, reveal bool) any {
	name := config.SecretVariable(key, cfg)
	if key == "api_key" {
		if id := normalizeProvider(cfg.Provider); id != "" && id != "auto" {
			name, _ = keyVariable(cfg, id)
		}
	}
	getenv, err := homeEnv(e, cfg.Home)
	if name == "" || err != nil || getenv(name) == "" {
		return nil
	}
	if reveal {
		return getenv(name)
	}
	return mask(getenv(name))
}

// writeYAML prints v as YAML indented as config.yaml usually is.
func writeYAML(e *env, v any) error {
	enc := yaml.NewEncoder(e.stdout)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	return enc.Close()
}
