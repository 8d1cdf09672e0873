package approval

import (
	"path"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

var envAssign = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*=`)

// wrapperArgFlags lists, per wrapper, the flags that take a value, so the
// value is not mistaken for the wrapped command.
var wrapperArgFlags = lazy.Of(wrapperArgFlagTable)

func wrapperArgFlagTable() map[string]string {
	return map[string]string{
		"exec":    "-a",
		"nice":    "-n --adjustment",
		"ionice":  "-c -n -p --class --classdata",
		"timeout": "-s -k --signal --kill-after",
		"stdbuf":  "-i -o -e",
		"chroot":  "--userspec --groups",
		"time":    "-f -o --format --output",
		"taskset": "",
	}
}

// wrappers run the command that follows them.
var wrappers = lazy.Of(wrapperSet)

func wrapperSet() map[string]bool {
	return map[string]bool{
		"env": true, "command": true, "exec": true,
		"nohup": true, "time": true, "nice": true, "ionice": true, "setsid": true,
		"timeout": true, "stdbuf": true, "builtin": true, "busybox": true,
		"chroot": true, "unbuffer": true, "then": true, "do": true,
		"else": true, "!": true, "if": true, "while": true, "until": true, "elif": true,
	}
}

// command is a segment reduced to the program it runs and its arguments,
// after wrappers (sudo, env, nohup, ...), variable assignments and the
// directory of the program (/bin/rm) are stripped. The name is
// lower-cased; arguments keep their case (chown -R is not chown -r).
type command struct {
	name string
	args []string
	// payloads are command strings the segment makes a shell run:
	// sh -c "...", su -c "...", eval ..., env -S "...".
	payloads []payload
	// stdinRuns, when set, is what the command runs of its standard
	// input (at, su with no command, parallel's input lines).
	stdinRuns func(text string) []payload
	// findings are asked whatever the command runs (nsenter's shell).
	findings []Finding
	// lookup is set for command -v / type, which only look a name up.
	lookup bool
	// at is the index of the program's name in the segment's words.
	at int
}

func normalize(seg segment) command {
	c := normalizeWords(seg.words)
	return c
}

func normalizeWords(words []string) command {
	w := words
	at := func() int { return len(words) - len(w) }
	for len(w) > 0 {
		first := w[0]
		if envAssign.Get().MatchString(first) {
			w = w[1:]
			continue
		}
		name := path.Base(strings.ToLower(first))
		if name == "env" {
			rest, split, runs := envArgs(w[1:])
			switch {
			case !runs:
				return command{}
			case split != nil:
				return command{name: "env", at: at(), payloads: []payload{*split}}
			}
			w = rest
			continue
		}
		if read, ok := launchers.Get()[name]; ok {
			l := read(w[1:])
			if l.argv != nil && len(l.payloads) == 0 && l.stdin == nil && len(l.findings) == 0 {
				w = l.argv
				continue
			}
			c := command{name: name, args: w[1:], at: at(), payloads: l.payloads, stdinRuns: l.stdin, findings: l.findings}
			if l.argv != nil {
				c.payloads = append(c.payloads, payload{text: liveJoin(l.argv)})
			}
			return c
		}
		if !wrappers.Get()[name] {
			break
		}
		if name == "command" && len(w) > 1 && (w[1] == "-v" || w[1] == "-V") {
			return command{name: "command", lookup: true}
		}
		w = w[1:]
		argFlags := " " + wrapperArgFlags.Get()[name] + " "
		for len(w) > 0 && strings.HasPrefix(w[0], "-") && w[0] != "-" {
			f := w[0]
			w = w[1:]
			if f == "--" {
				break
			}
			if strings.Contains(argFlags, " "+f+" ") && len(w) > 0 {
				w = w[1:]
			}
		}
		switch name {
		case "timeout": // timeout DURATION cmd; a word that is no duration runs nothing
			if len(w) > 0 && !isDuration(w[0]) {
				return command{}
			}
			if len(w) > 0 {
				w = w[1:]
			}
		case "chroot": // chroot DIR cmd
			if len(w) > 0 {
				w = w[1:]
			}
		}
	}
	if len(w) == 0 {
		return command{}
	}
	c := command{name: path.Base(strings.ToLower(w[0])), at: at()}
	c.args = append(c.args, w[1:]...)
	c.payloads = carrierPayloads(c.name, w[1:])
	return c
}

// readsStdin reports whether a shell or interpreter stage of a pipeline
// executes what is piped into it (no script file, or - / -s), or a
// launcher runs it.
func (c command) readsStdin() bool {
	if c.stdinRuns != nil {
		return true
	}
	if !shells.Get()[c.name] && !interpreters.Get()[c.name] {
		return false
	}
	for _, a := range c.args {
		if a == "-" || a == "-s" {
			return true
		}
		if a == "-c" || a == "-e" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

var interpreters = lazy.Of(interpreterSet)

func interpreterSet() map[string]bool {
	return map[string]bool{"python": true, "python3": true, "python2": true, "perl": true, "ruby": true, "node": true, "php": true}
}

// hasFlag reports whether any short-flag cluster contains one of letters,
// or a long flag equals one of longs. Flags after -- do not count.
func (c command) hasFlag(letters string, longs ...string) bool {
	for _, a := range c.args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, "--") {
			for _, l := range longs {
				if a == l || strings.HasPrefix(a, l+"=") {
					return true
				}
			}
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && strings.ContainsAny(a[1:], letters) {
			return true
		}
	}
	return false
}

// operands returns the arguments that are not flags.
func (c command) operands() []string {
	var out []string
	dashdash := false
	for _, a := range c.args {
		if !dashdash && a == "--" {
			dashdash = true
			continue
		}
		if !dashdash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// cleanTarget reduces a path argument to a canonical form: ~ for the home
// directory ($HOME, ${HOME}), and / for anything that collapses to the
// root (//, /., /*, /../).
func cleanTarget(a string) string {
	for _, h := range []string{"${home}", "$home"} {
		if len(a) >= len(h) && strings.EqualFold(a[:len(h)], h) {
			a = "~" + a[len(h):]
		}
	}
	if a == "~" || strings.HasPrefix(a, "~/") {
		rest := strings.TrimSuffix(strings.TrimSuffix(a[1:], "*"), "/")
		rest = path.Clean("/" + rest)
		if rest == "/" {
			return "~"
		}
		return "~" + rest
	}
	if !strings.HasPrefix(a, "/") {
		return a
	}
	for _, suf := range []string{"/*", "/.", "/"} {
		for strings.HasSuffix(a, suf) && len(a) > 1 {
			a = strings.TrimSuffix(a, suf)
		}
	}
	if a == "" {
		return "/"
	}
	return path.Clean(a)
}

// stdinPayloads is what a command runs of the text on its standard
// input: a shell reading it, or a launcher's own reading of it.
func (c command) stdinPayloads(text string) ([]payload, bool) {
	switch {
	case c.stdinRuns != nil:
		return c.stdinRuns(text), true
	case shells.Get()[c.name] && c.readsStdin():
		return []payload{{text: text}}, true
	}
	return nil, false
}
