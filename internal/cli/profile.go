package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// Profiles are separate homes under $HERMES_HOME/profiles/NAME, each with
// its own config.yaml, .env, sessions, skills, logs, cron and gateway
// stores. The one a run uses is chosen once, before any command reads the
// home: -p NAME, else HERMES_PROFILE, else the name in
// $HERMES_HOME/active_profile (hermes profile use), else none (the home
// itself, shown as "default").

const (
	// activeProfileFile, in the base home, names the profile runs use
	// when neither -p nor HERMES_PROFILE says.
	activeProfileFile = "active_profile"
	// defaultProfile names the base home itself.
	defaultProfile = "default"
	profilesDir    = config.ProfilesDir
)

var profileNameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// validProfileName refuses names that would leave profiles/ or hide:
// path separators, "..", a leading dot, and anything but letters, digits,
// '.', '_' and '-'.
func validProfileName(name string) error {
	switch {
	case name == "":
		return errors.New("a profile needs a name")
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, ".."):
		return fmt.Errorf("profile name %q: no path separators or '..'", name)
	case !profileNameRE.Get().MatchString(name):
		return fmt.Errorf("profile name %q: use up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// profileHome is the home of profile name under base ("default": base).
func profileHome(base, name string) string {
	if name == "" || name == defaultProfile {
		return base
	}
	return filepath.Join(base, profilesDir, name)
}

// readActiveProfile is the name hermes profile use wrote ("" when none).
func readActiveProfile(base string) (string, error) {
	b, err := os.ReadFile(filepath.Join(base, activeProfileFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the active profile: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// selectProfile makes the chosen profile's directory the home of this
// run: every later config.Home(e.getenv) (config, .env, sessions, skills,
// logs, cron, gateway) reads it. flag is -p's value, set when given. In
// the hermes process itself the environment changes too, so commands and
// servers hermes starts see the same home.
func selectProfile(e *env, flag string, set bool) error {
	base := config.Home(e.getenv)
	e.baseHome = base
	name, from := "", ""
	switch {
	case set:
		name, from = strings.TrimSpace(flag), "-p"
		if name == "" {
			return &exitError{code: exitUsage, err: errors.New("-p needs a profile name (hermes profile list shows them)")}
		}
	case strings.TrimSpace(e.getenv("HERMES_PROFILE")) != "":
		name, from = strings.TrimSpace(e.getenv("HERMES_PROFILE")), "HERMES_PROFILE"
	default:
		active, err := readActiveProfile(base)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		name, from = active, filepath.Join(base, activeProfileFile)
	}
	if name == "" || name == defaultProfile {
		e.profile = defaultProfile
		return nil
	}
	if err := validProfileName(name); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", from, err)}
	}
	home := profileHome(base, name)
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s names profile %q, which does not exist (%s): create it with hermes profile create %s, or choose another (hermes profile list; hermes profile use default)", from, name, home, name)}
	}
	e.profile = name
	outer := e.getenv
	e.getenv = func(k string) string {
		switch k {
		case "HERMES_HOME":
			return home
		case "HERMES_PROFILE":
			return ""
		}
		return outer(k)
	}
	if e.process {
		// A child hermes (a command the agent runs, a cron job) starts in
		// the same home and does not apply the profile a second time.
		os.Setenv("HERMES_HOME", home)
		os.Unsetenv("HERMES_PROFILE")
	}
	return nil
}

// profileHook selects the profile of the run. Under hermes profile, which
// works on the base home, a profile that cannot be selected (an
// active_profile naming one deleted by hand) is a warning: those commands
// are how it gets fixed.
func profileHook(e *env, cmd *cobra.Command, flag string) error {
	err := selectProfile(e, flag, cmd.Flags().Changed("profile"))
	if err == nil {
		return nil
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "profile" && c.Parent() != nil && c.Parent().Parent() == nil {
			e.warn(err)
			return nil
		}
	}
	return err
}

// profileName is the profile this run uses, for status displays.
func (e *env) profileName() string {
	if e.profile != "" {
		return e.profile
	}
	return defaultProfile
}
