package slash

import (
	"context"
	"errors"
	"fmt"
	"github.com/hermes-go/hermes/internal/editdist"
	"slices"
	"strings"
	"sync"
)

// Command is one slash command.
type Command struct {
	// Name is the command without its slash ("model"); lower case,
	// without spaces.
	Name string
	// Aliases are other names that run it ("quit" for "exit").
	Aliases []string
	// Args describes the arguments for /help ("[provider:]name").
	Args string
	// Summary is its one line in /help.
	Summary string
	// WhileBusy lets the command run while a turn runs (/stop, /usage);
	// a surface holds the others until the turn has ended.
	WhileBusy bool
	// Skill marks a command that loads a skill (RegisterSkills): the
	// other commands win a prefix over it (/mod stays /model beside a
	// skill "modeling"), and /help lists skills apart.
	Skill bool
	// Run does the command; args is the rest of the line, trimmed. Its
	// error is shown to the user.
	Run func(ctx context.Context, h Host, args string) error
}

// Registry holds the commands. The zero value is empty and ready; use
// Builtin for one holding the built-in commands.
type Registry struct {
	mu     sync.RWMutex
	cmds   map[string]*Command // by name
	byName map[string]*Command // by name and alias
}

// Register adds a command. A name or alias already taken, or a command
// without name or Run, is an error.
func (r *Registry) Register(c Command) error {
	if c.Name == "" || strings.ContainsAny(c.Name, " /\t") || c.Run == nil {
		return fmt.Errorf("slash: register %q: a command needs a name without spaces or slashes, and a Run", c.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmds == nil {
		r.cmds, r.byName = map[string]*Command{}, map[string]*Command{}
	}
	names := append([]string{c.Name}, c.Aliases...)
	for _, n := range names {
		if other, ok := r.byName[strings.ToLower(n)]; ok {
			return fmt.Errorf("slash: register /%s: /%s is already taken by /%s", c.Name, n, other.Name)
		}
	}
	cp := c
	cp.Aliases = slices.Clone(c.Aliases)
	r.cmds[strings.ToLower(c.Name)] = &cp
	for _, n := range names {
		r.byName[strings.ToLower(n)] = &cp
	}
	return nil
}

// MustRegister is Register for commands known to be valid at start-up.
func (r *Registry) MustRegister(cs ...Command) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// Unregister removes a command and its aliases; an unknown name does
// nothing.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.cmds[strings.ToLower(name)]
	if !ok {
		return
	}
	delete(r.cmds, strings.ToLower(c.Name))
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		delete(r.byName, strings.ToLower(n))
	}
}

// Commands lists the commands by name.
func (r *Registry) Commands() []Command {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Command, 0, len(r.cmds))
	for _, c := range r.cmds {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// UnknownError is an unknown command name; Suggestion is the nearest
// command's name ("" when none is near).
type UnknownError struct {
	Name, Suggestion string
}

func (e *UnknownError) Error() string {
	if e.Suggestion != "" {
		return fmt.Sprintf("unknown command /%s; did you mean /%s? (/help lists the commands)", e.Name, e.Suggestion)
	}
	return fmt.Sprintf("unknown command /%s (/help lists the commands)", e.Name)
}

// AmbiguousError is a prefix that more than one command starts with.
type AmbiguousError struct {
	Prefix     string
	Candidates []string // the names and aliases that match, one per command, sorted
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("/%s could be /%s", e.Prefix, strings.Join(e.Candidates, ", /"))
}

// Lookup finds the command name names: its name or an alias exactly, or
// the one command a prefix of its name or an alias starts. Otherwise the
// error is an *AmbiguousError or an *UnknownError.
func (r *Registry) Lookup(name string) (Command, error) {
	key := strings.ToLower(strings.TrimPrefix(name, "/"))
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c, ok := r.byName[key]; ok {
		return *c, nil
	}
	found := map[*Command]string{} // the command, and the name it matched by
	for n, c := range r.byName {
		if key == "" || !strings.HasPrefix(n, key) {
			continue
		}
		if prev, ok := found[c]; !ok || n == strings.ToLower(c.Name) || prev != strings.ToLower(c.Name) && n < prev {
			found[c] = n
		}
	}
	if len(found) > 1 {
		var commands []*Command
		for c := range found {
			if !c.Skill {
				commands = append(commands, c)
			}
		}
		if len(commands) == 1 {
			return *commands[0], nil
		}
	}
	switch len(found) {
	case 1:
		for c := range found {
			return *c, nil
		}
	case 0:
		return Command{}, &UnknownError{Name: key, Suggestion: r.nearest(key)}
	}
	names := make([]string, 0, len(found))
	for _, n := range found {
		names = append(names, n)
	}
	slices.Sort(names)
	return Command{}, &AmbiguousError{Prefix: key, Candidates: names}
}

// nearest is the command whose name or alias is closest to key, within a
// few edits; r.mu is held.
func (r *Registry) nearest(key string) string {
	best, bestD := "", max(2, len(key)/3)+1
	for n, c := range r.byName {
		if d := editdist.Distance(key, n); d < bestD || d == bestD && c.Name < best {
			best, bestD = c.Name, d
		}
	}
	return best
}

// Complete returns the completions of a partial line for Tab: the
// command names and aliases (with their slash and a trailing space) that
// the line's first word starts. A line already past its first word has
// none.
func (r *Registry) Complete(line string) []string {
	if !strings.HasPrefix(line, "/") || strings.ContainsAny(line, " \t\n") {
		return nil
	}
	key := strings.ToLower(line[1:])
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for n := range r.byName {
		if strings.HasPrefix(n, key) {
			out = append(out, "/"+n+" ")
		}
	}
	slices.Sort(out)
	return out
}

// Parse splits a command line into the command's name and its
// arguments. ok is false for a line that is not a command: one that does
// not start with "/", or whose first word is a path ("/etc/hosts ...").
func Parse(line string) (name, args string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return "", "", false
	}
	word, rest, _ := strings.Cut(line[1:], " ")
	if i := strings.IndexAny(word, "\t\n"); i >= 0 {
		word, rest = word[:i], word[i+1:]+" "+rest
	}
	if word == "" || strings.Contains(word, "/") {
		return "", "", false
	}
	return word, strings.TrimSpace(rest), true
}

// ErrBusy is returned by Dispatch for a command that waits for the turn
// to end (see Command.WhileBusy) when the host is busy.
var ErrBusy = errors.New("a turn is running: wait for it, or /stop it")

// Dispatch runs line's command. handled is false for a line that is not
// a command (it goes to the model). An unknown or ambiguous command is
// handled, with its error: it never reaches the model.
func (r *Registry) Dispatch(ctx context.Context, h Host, line string) (handled bool, err error) {
	name, args, ok := Parse(line)
	if !ok {
		return false, nil
	}
	c, err := r.Lookup(name)
	if err != nil {
		return true, err
	}
	if !c.WhileBusy && h.Busy() {
		return true, fmt.Errorf("/%s: %w", c.Name, ErrBusy)
	}
	return true, c.Run(ctx, h, args)
}
