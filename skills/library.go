package skills

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Library is the skills of one runtime: where they are found and where
// the user's own are written.
type Library struct {
	// Home is HERMES_HOME; its skills directory is the one written.
	Home  string
	Roots []Root

	seenMu   sync.Mutex
	seen     bool   // a skill was found: the skill tools are offered
	emptySig string // the roots as they were when a walk found nothing
}

// New returns the library of a runtime in workdir.
func New(home, workdir string, external []string) *Library {
	return &Library{Home: home, Roots: Roots(home, workdir, external)}
}

// Dir is $HERMES_HOME/skills.
func (l *Library) Dir() string { return filepath.Join(l.Home, "skills") }

// List finds the skills now (see Discover).
func (l *Library) List() ([]Skill, []string) { return Discover(l.Roots) }

// Names lists the installed skills' names, sorted: each is a slash
// command.
func (l *Library) Names() []string {
	list, _ := l.List()
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	return names
}

// Get finds one skill by name.
func (l *Library) Get(name string) (Skill, error) {
	list, notes := l.List()
	for _, s := range list {
		if s.Name == name {
			return s, nil
		}
	}
	for _, n := range notes {
		if strings.HasPrefix(n, "skill "+name+" ") {
			return Skill{}, fmt.Errorf("skill %q is not available: %s", name, n)
		}
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = s.Name
	}
	if len(names) == 0 {
		return Skill{}, fmt.Errorf("no skill %q: no skills are installed (in %s)", name, l.Dir())
	}
	return Skill{}, fmt.Errorf("no skill %q (installed: %s)", name, strings.Join(names, ", "))
}

// Preload renders skills for the system prompt of a run that asked for
// them (hermes -s NAME): their whole instructions, in the order given.
func (l *Library) Preload(names []string) (string, error) {
	if len(names) == 0 {
		return "", nil
	}
	var b strings.Builder
	b.WriteString("## Preloaded skills\nThe user loaded these skills for this session: follow them where they apply.\n")
	var done []string
	for _, n := range names {
		if slices.Contains(done, n) {
			continue
		}
		done = append(done, n)
		s, err := l.Get(n)
		if err != nil {
			return "", err
		}
		block, err := s.block()
		if err != nil {
			return "", err
		}
		b.WriteString("\n" + block + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// Message is the user message that /NAME [request] sends: the skill's
// instructions, then the request.
func (l *Library) Message(name, request string) (string, error) {
	s, err := l.Get(name)
	if err != nil {
		return "", err
	}
	block, err := s.block()
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Use the skill %q for this request. Its instructions:\n\n%s\n\n", s.Name, block)
	if request = strings.TrimSpace(request); request != "" {
		return msg + "Request: " + request, nil
	}
	return msg + "There is no further request: follow the skill's instructions.", nil
}

// block is the skill wrapped for a prompt or a message, with its files
// named.
func (s Skill) block() (string, error) {
	body, err := s.Body()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q dir=%q>\n%s\n", s.Name, s.Dir, strings.TrimSpace(body))
	if files, _ := s.Files(); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles of this skill (read with skill_view(%q, file)): %s\n", s.Name, strings.Join(files, ", "))
	}
	b.WriteString("</skill>")
	return b.String(), nil
}
