package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/skills"
)

// newSkillsCmd is `hermes skills list|inspect|install|remove`.
func newSkillsCmd(e *env) *cobra.Command {
	root := &cobra.Command{Use: "skills", Short: "List, inspect, install and remove skills (SKILL.md directories)"}
	library := func() (*skills.Library, error) {
		cfg, err := loadPlainConfig(e)
		if err != nil {
			return nil, err
		}
		wd, err := os.Getwd()
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		return skills.New(cfg.Home, wd, cfg.Skills.ExternalDirs), nil
	}
	var asJSON bool
	list := &cobra.Command{
		Use: "list", Short: "List the skills found here: yours, the project's and skills.external_dirs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := library()
			if err != nil {
				return err
			}
			found, notes := lib.List()
			if asJSON {
				type row struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Source      string `json:"source"`
					Dir         string `json:"dir"`
				}
				rows := []row{}
				for _, s := range found {
					rows = append(rows, row{s.Name, s.Description, s.Source, s.Dir})
				}
				return printJSON(e.stdout, map[string]any{"skills": rows, "notes": append([]string{}, notes...)})
			}
			if len(found) == 0 {
				fmt.Fprintf(e.stdout, "No skills found. Install one with: hermes skills install PATH_OR_GIT_URL (into %s)\n", lib.Dir())
			} else {
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
				for _, s := range found {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Source, s.Description)
				}
				tw.Flush()
			}
			for _, n := range notes {
				fmt.Fprintln(e.stderr, "hermes: note:", n)
			}
			return nil
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	inspect := &cobra.Command{
		Use: "inspect NAME", Short: "Show a skill's SKILL.md, where it is and its files", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := library()
			if err != nil {
				return err
			}
			s, err := lib.Get(args[0])
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			text, err := s.Load()
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "# %s (%s skill in %s)\n\n%s\n", s.Name, s.Source, s.Dir, strings.TrimRight(text, "\n"))
			if files, _ := s.Files(); len(files) > 0 {
				fmt.Fprintf(e.stdout, "\nFiles: %s\n", strings.Join(files, ", "))
			}
			return nil
		},
	}

	var force bool
	install := &cobra.Command{
		Use: "install PATH_OR_GIT_URL", Short: "Copy a skill directory (or every skill in a directory or git repository) into HERMES_HOME/skills, after scanning it",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := library()
			if err != nil {
				return err
			}
			got, err := lib.Install(cmdContext(cmd), args[0], force)
			for _, s := range got {
				fmt.Fprintf(e.stdout, "Installed skill %s into %s (use it with /%s, or hermes -s %s)\n", s.Name, s.Dir, s.Name, s.Name)
			}
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return nil
		},
	}
	install.Flags().BoolVar(&force, "force", false, "replace skills of the same name")

	remove := &cobra.Command{
		Use: "remove NAME", Short: "Delete a skill from HERMES_HOME/skills", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := library()
			if err != nil {
				return err
			}
			if err := lib.Remove(args[0]); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "Removed skill %s\n", args[0])
			return nil
		},
	}
	root.AddCommand(list, inspect, install, remove)
	return root
}
