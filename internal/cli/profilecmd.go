package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
)

// newProfileCmd is `hermes profile list|create|use|delete|show`. The
// subcommands work on the base home ($HERMES_HOME, where profiles/ is),
// whichever profile the run itself selected.
func newProfileCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "profile",
		Short: "List, create, switch and delete profiles: separate homes with their own config, keys, sessions and skills",
		Long: "A profile is a home of its own under $HERMES_HOME/profiles/NAME: config.yaml, .env, sessions,\n" +
			"skills, logs, cron and gateway stores. hermes -p NAME or HERMES_PROFILE=NAME runs against it;\n" +
			"hermes profile use NAME makes it the default for runs that name none (\"default\" is $HERMES_HOME itself).",
	}
	root.AddCommand(newProfileListCmd(e), newProfileCreateCmd(e), newProfileUseCmd(e), newProfileDeleteCmd(e), newProfileShowCmd(e))
	return root
}

type profileRow struct {
	Name string `json:"name"`
	Home string `json:"home"`
	// Active: runs that name no profile use it (hermes profile use).
	Active bool `json:"active"`
	// Current: this run uses it (-p, HERMES_PROFILE or the active one).
	Current bool `json:"current"`
}

// profileNames lists default and the profiles under base, in name order.
func profileNames(base string) ([]string, error) {
	names := []string{defaultProfile}
	ents, err := os.ReadDir(filepath.Join(base, profilesDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("listing profiles: %w", err)
	}
	for _, d := range ents {
		if d.IsDir() && validProfileName(d.Name()) == nil && d.Name() != defaultProfile {
			names = append(names, d.Name())
		}
	}
	slices.Sort(names[1:])
	return names, nil
}

func activeOrDefault(base string) (string, error) {
	a, err := readActiveProfile(base)
	if a == "" {
		a = defaultProfile
	}
	return a, err
}

func newProfileListCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use: "list", Short: "List the profiles, marking the active one (*) and the one this run uses", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := profileNames(e.baseHome)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			active, err := activeOrDefault(e.baseHome)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			rows := make([]profileRow, 0, len(names))
			for _, n := range names {
				rows = append(rows, profileRow{Name: n, Home: profileHome(e.baseHome, n), Active: n == active, Current: n == e.profileName()})
			}
			if asJSON {
				return printJSON(e.stdout, rows)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  NAME\tHOME\t")
			for _, r := range rows {
				mark, note := " ", ""
				if r.Active {
					mark = "*"
				}
				if r.Current && !r.Active {
					note = "(this run)"
				}
				fmt.Fprintf(tw, "%s %s\t%s\t%s\n", mark, r.Name, r.Home, note)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func newProfileCreateCmd(e *env) *cobra.Command {
	var clone bool
	c := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a profile; --clone copies config.yaml, .env and skills (not sessions) from the home this run uses",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := validProfileName(name); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if name == defaultProfile {
				return &exitError{code: exitUsage, err: fmt.Errorf("%q is the base home itself, not a profile to create", defaultProfile)}
			}
			home := profileHome(e.baseHome, name)
			if err := os.MkdirAll(filepath.Dir(home), 0o700); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("creating %s: %w", filepath.Dir(home), err)}
			}
			if err := os.Mkdir(home, 0o700); err != nil {
				if errors.Is(err, os.ErrExist) {
					return &exitError{code: exitFailed, err: fmt.Errorf("profile %q exists already (%s)", name, home)}
				}
				return &exitError{code: exitFailed, err: fmt.Errorf("creating profile %q: %w", name, err)}
			}
			fmt.Fprintf(e.stdout, "Created profile %s at %s\n", name, home)
			if clone {
				from := config.Home(e.getenv)
				copied, err := cloneHome(from, home)
				if err != nil {
					return &exitError{code: exitFailed, err: fmt.Errorf("cloning %s into profile %q: %w", from, name, err)}
				}
				if len(copied) == 0 {
					fmt.Fprintf(e.stdout, "Nothing to copy from %s (no config.yaml, .env or skills)\n", from)
				}
				for _, c := range copied {
					fmt.Fprintf(e.stdout, "Copied %s\n", c)
				}
			}
			fmt.Fprintf(e.stdout, "Use it with: hermes -p %s ...  or make it the default: hermes profile use %s\n", name, name)
			return nil
		},
	}
	c.Flags().BoolVar(&clone, "clone", false, "copy config.yaml, .env and skills/ from the home this run uses (sessions are not copied)")
	return c
}

// cloneHome copies what a new profile takes from another home:
// config.yaml, .env (modes kept) and the skills tree.
func cloneHome(from, to string) ([]string, error) {
	var copied []string
	for _, f := range []string{"config.yaml", ".env"} {
		ok, err := copyFile(filepath.Join(from, f), filepath.Join(to, f))
		if err != nil {
			return copied, err
		}
		if ok {
			copied = append(copied, f)
		}
	}
	src := filepath.Join(from, "skills")
	if fi, err := os.Stat(src); err == nil && fi.IsDir() {
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			dst := filepath.Join(to, "skills", rel)
			switch {
			case d.IsDir():
				return os.MkdirAll(dst, 0o700)
			case d.Type().IsRegular():
				_, err := copyFile(p, dst)
				return err
			}
			return nil // links and devices stay behind
		})
		if err != nil {
			return copied, fmt.Errorf("copying skills: %w", err)
		}
		copied = append(copied, "skills/")
	}
	return copied, nil
}

// copyFile copies src to dst with src's permission bits; a missing src
// copies nothing.
func copyFile(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, fmt.Errorf("copying %s: %w", src, err)
	}
	return true, out.Close()
}

func newProfileUseCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the profile of runs that name none (\"default\": $HERMES_HOME itself)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			path := filepath.Join(e.baseHome, activeProfileFile)
			if name == defaultProfile {
				if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
					return &exitError{code: exitFailed, err: fmt.Errorf("clearing the active profile: %w", err)}
				}
				fmt.Fprintf(e.stdout, "Runs now use the default home %s\n", e.baseHome)
				return nil
			}
			if err := existingProfile(e.baseHome, name); err != nil {
				return err
			}
			if err := os.MkdirAll(e.baseHome, 0o700); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if err := os.WriteFile(path, []byte(name+"\n"), 0o600); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("setting the active profile: %w", err)}
			}
			fmt.Fprintf(e.stdout, "Runs now use profile %s (%s); -p and HERMES_PROFILE still choose another\n", name, profileHome(e.baseHome, name))
			return nil
		},
	}
}

// existingProfile checks that name is a valid profile that exists.
func existingProfile(base, name string) error {
	if err := validProfileName(name); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if fi, err := os.Stat(profileHome(base, name)); err != nil || !fi.IsDir() {
		return &exitError{code: exitFailed, err: fmt.Errorf("no profile %q (hermes profile list shows them; hermes profile create %s makes it)", name, name)}
	}
	return nil
}

func newProfileDeleteCmd(e *env) *cobra.Command {
	var yes bool
	c := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a profile and everything in it (sessions, keys, skills); asks first unless --yes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if name == defaultProfile {
				return &exitError{code: exitUsage, err: errors.New("the default profile is $HERMES_HOME itself and cannot be deleted")}
			}
			if err := existingProfile(e.baseHome, name); err != nil {
				return err
			}
			active, err := activeOrDefault(e.baseHome)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if name == active {
				return &exitError{code: exitFailed, err: fmt.Errorf("profile %q is the active one: switch first (hermes profile use default), then delete it", name)}
			}
			if name == e.profileName() {
				return &exitError{code: exitFailed, err: fmt.Errorf("profile %q is the one this run uses (-p or HERMES_PROFILE): run the delete from another", name)}
			}
			home := profileHome(e.baseHome, name)
			if !yes {
				if err := confirm(e, "hermes profile delete", fmt.Sprintf("Delete profile %s and everything in %s?", name, home)); err != nil {
					return err
				}
			}
			if err := os.RemoveAll(home); err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("deleting profile %q: %w", name, err)}
			}
			fmt.Fprintf(e.stdout, "Deleted profile %s (%s)\n", name, home)
			return nil
		},
	}
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	return c
}

// profileInfo is what hermes profile show prints.
type profileInfo struct {
	Name     string `json:"name"`
	Home     string `json:"home"`
	Active   bool   `json:"active"`
	Current  bool   `json:"current"`
	Config   bool   `json:"config"` // config.yaml exists
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Sessions int    `json:"sessions"`
	Skills   int    `json:"skills"`
	Error    string `json:"error,omitempty"`
}

func newProfileShowCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a profile (default: the one this run uses): its home, provider and model, sessions and skills",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := e.profileName()
			if len(args) == 1 {
				name = args[0]
			}
			if name != defaultProfile {
				if err := existingProfile(e.baseHome, name); err != nil {
					return err
				}
			}
			active, _ := activeOrDefault(e.baseHome)
			home := profileHome(e.baseHome, name)
			info := profileInfo{Name: name, Home: home, Active: name == active, Current: name == e.profileName()}
			_, err := os.Stat(filepath.Join(home, "config.yaml"))
			info.Config = err == nil
			if cfg, err := config.Load(home, func(string) string { return "" }); err != nil {
				info.Error = err.Error()
			} else {
				info.Provider, info.Model = cfg.Provider, cfg.Model.Name
			}
			info.Sessions, _ = countSessions(home)
			info.Skills = countSkills(home)
			if asJSON {
				return printJSON(e.stdout, info)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "profile\t%s\n", info.Name)
			fmt.Fprintf(tw, "home\t%s\n", info.Home)
			fmt.Fprintf(tw, "active\t%v\n", info.Active)
			fmt.Fprintf(tw, "provider\t%s\n", orNone(info.Provider))
			fmt.Fprintf(tw, "model\t%s\n", orNone(info.Model))
			fmt.Fprintf(tw, "sessions\t%d\n", info.Sessions)
			fmt.Fprintf(tw, "skills\t%d\n", info.Skills)
			if info.Error != "" {
				fmt.Fprintf(tw, "config\t%s\n", info.Error)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func orNone(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// countSkills counts the skills in home/skills (directories holding a
// SKILL.md, at any depth: categories nest them).
func countSkills(home string) int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(home, "skills"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "SKILL.md" {
			n++
		}
		return nil
	})
	return n
}
