package approval

import (
	"path"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// payload is command text a carrier hands a shell to run (sh -c, su -c,
// eval, env -S), with the positional parameters that shell gets ($0,
// $1, ...; nil when the carrier sets none).
type payload struct {
	text   string
	params []string
	// loose is set for text that is likely but not surely shell code
	// (keys typed into a terminal, a unit's ExecStart=): text that does
	// not parse asks when it looks dangerous, instead of being refused.
	loose bool
}

var shells = lazy.Of(shellSet)

func shellSet() map[string]bool {
	return map[string]bool{"sh": true, "bash": true, "zsh": true, "ksh": true, "dash": true, "ash": true, "fish": true, "mksh": true, "csh": true, "tcsh": true}
}

// carrierPayloads returns what a carrier runs through a shell. args are
// the carrier's arguments, with their case: the payload is parsed again.
func carrierPayloads(name string, args []string) []payload {
	switch {
	case name == "fish":
		if ps, ok := fishPayloads(args); ok {
			return ps
		}
		return shellPayloads(name, args)
	case shells.Get()[name]:
		return shellPayloads(name, args)
	case name == "eval":
		return []payload{{text: strings.Join(args, " ")}}
	}
	return nil
}

// shellPayloads reads a POSIX-style shell's command line: a c in any
// option cluster (-c, -lc, -ec, +c) makes the first operand after all
// the options the command, whatever options come between (-c -x 'cmd',
// -ce -- 'cmd'); -o and -O take a value, as bash's leading --rcfile and
// --init-file do. The operands after the command are $0, $1, ... The
// argument right after the -c cluster is checked too: csh and tcsh read
// the command from it.
func shellPayloads(name string, args []string) []payload {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "--") && args[i] != "--" {
		if args[i] == "--rcfile" || args[i] == "--init-file" {
			i++
		}
		i++
	}
	command, next := false, -1
	for i < len(args) {
		a := args[i]
		if a == "-" || a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			break
		}
		i++
		at := i
		for _, ch := range a[1:] {
			switch ch {
			case 'c':
				if !command {
					next = at
				}
				command = true
			case 'o', 'O':
				i = min(i+1, len(args))
			}
		}
	}
	if !command {
		return nil
	}
	var out []payload
	if i < len(args) {
		params := append([]string(nil), args[i+1:]...)
		if len(params) == 0 {
			params = []string{name}
		}
		out = append(out, payload{text: args[i], params: params})
	}
	if next >= 0 && next < len(args) && next != i {
		out = append(out, payload{text: args[next]})
	}
	return out
}

// fish takes each -c and -C (--command, --init-command) value as code.
var fishSpec = optSpec{short: "hPilNnvc:C:p:d:f:D:o:", inOrder: true, long: []longOpt{
	{"command", requiredArg, "c"}, {"init-command", requiredArg, "C"}, {"features", requiredArg, "f"},
	{"debug", requiredArg, "d"}, {"debug-output", requiredArg, "o"}, {"debug-stack-frames", requiredArg, "D"},
	{"interactive", noArg, "i"}, {"login", noArg, "l"}, {"no-execute", noArg, "n"}, {"no-config", noArg, "N"},
	{"print-rusage-self", noArg, "print-rusage-self"}, {"print-debug-categories", noArg, "print-debug-categories"},
	{"profile", requiredArg, "p"}, {"profile-startup", requiredArg, "profile-startup"}, {"private", noArg, "P"},
	{"help", noArg, "h"}, {"version", noArg, "v"},
}}

func fishPayloads(args []string) ([]payload, bool) {
	opts, _, err := fishSpec.parse(args)
	if err != nil {
		return nil, false
	}
	var out []payload
	for _, o := range opts {
		if o.id == "c" || o.id == "C" {
			out = append(out, payload{text: o.value})
		}
	}
	return out, true
}

// su and runuser read their options with getopt_long (util-linux).
var suSpec = optSpec{short: "c:fg:G:lmpPs:u:hVw:", long: []longOpt{
	{"command", requiredArg, "c"}, {"session-command", requiredArg, "C"}, {"fast", noArg, "f"},
	{"login", noArg, "l"}, {"preserve-environment", noArg, "p"}, {"pty", noArg, "P"},
	{"shell", requiredArg, "s"}, {"group", requiredArg, "g"}, {"supp-group", requiredArg, "G"},
	{"user", requiredArg, "u"}, {"whitelist-environment", requiredArg, "w"},
	{"help", noArg, "h"}, {"version", noArg, "V"},
}}

// suLaunch is what su or runuser runs: the -s program (else sh) given
// -c and the last --command or --session-command, then the operands
// after the user as its arguments (su root -- -c CMD runs CMD too); a
// -s program that is no known shell is checked as the program it is and
// as a shell. runuser -u runs its operands as a command. Without a
// command, the shell reads its commands from standard input. A line su
// refuses (an unknown or ambiguous option, --help) runs nothing.
func suLaunch(name string, args []string) launch {
	if suInteractive(args) {
		return launch{stdin: shellStdin}
	}
	return launch{payloads: suPayloads(name, args)}
}

// suInteractive reports whether su starts a shell with no command.
func suInteractive(args []string) bool {
	opts, ops, err := suSpec.parse(args)
	if err != nil {
		return false
	}
	for _, o := range opts {
		switch o.id {
		case "c", "C", "u", "h", "V":
			return false
		case "s":
			if !shells.Get()[path.Base(strings.ToLower(o.value))] {
				return false
			}
		}
	}
	if len(ops) > 0 && ops[0] == "-" {
		ops = ops[1:]
	}
	return len(ops) <= 1
}

func suPayloads(name string, args []string) []payload {
	opts, ops, err := suSpec.parse(args)
	if err != nil {
		return nil
	}
	var cmd, shell string
	hasCmd, user := false, false
	for _, o := range opts {
		switch o.id {
		case "c", "C":
			cmd, hasCmd = o.value, true
		case "s":
			shell = o.value
		case "u":
			user = true
		case "h", "V":
			return nil
		}
	}
	if user {
		if name != "runuser" || hasCmd || shell != "" || len(ops) == 0 {
			return nil
		}
		return []payload{{text: liveJoin(ops)}}
	}
	if len(ops) > 0 && ops[0] == "-" {
		ops = ops[1:]
	}
	if len(ops) > 0 {
		ops = ops[1:] // the user
	}
	b := path.Base(strings.ToLower(shell))
	if hasCmd && (shell == "" || shells.Get()[b]) {
		// The shell's command, with the operands as $0, $1, ...
		params := ops
		if len(params) == 0 && shell == "" {
			params = []string{"sh"}
		} else if len(params) == 0 {
			params = []string{b}
		}
		return []payload{{text: cmd, params: params}}
	}
	var args2 []string
	if hasCmd {
		args2 = append(args2, "-c", quoteWord(cmd))
	}
	if len(ops) > 0 {
		args2 = append(args2, liveJoin(ops))
	}
	invoke := func(program string) payload {
		return payload{text: strings.Join(append([]string{program}, args2...), " ")}
	}
	switch {
	case shell == "" && len(args2) == 0:
		return nil // an interactive shell
	case shell == "":
		return []payload{invoke("sh")}
	case shells.Get()[b] || codeFlags.Get()[b] != nil:
		return []payload{invoke(b)}
	}
	return []payload{invoke(liveJoin([]string{shell})), invoke("sh")}
}

// env reads its options with getopt_long, stopping at the first operand
// (coreutils).
var envSpec = optSpec{short: "a:C:iS:u:v0", inOrder: true, long: []longOpt{
	{"argv0", requiredArg, "a"}, {"ignore-environment", noArg, "i"}, {"null", noArg, "0"},
	{"unset", requiredArg, "u"}, {"chdir", requiredArg, "C"},
	{"default-signal", optionalArg, "default-signal"}, {"ignore-signal", optionalArg, "ignore-signal"},
	{"block-signal", optionalArg, "block-signal"}, {"list-signal-handling", noArg, "list-signal-handling"},
	{"debug", noArg, "v"}, {"split-string", requiredArg, "S"},
	{"help", noArg, "help"}, {"version", noArg, "version"},
}}

// envArgs reads env's options. It returns the words env runs (what
// follows its options and a lone -), or, for -S (--split-string and its
// abbreviations, -iS, -Sx), the command line env is left with: the
// string split as env splits it, then the arguments after it, which env
// reads again from its first option. runs is false when env refuses the
// line and runs nothing.
func envArgs(args []string) (rest []string, split *payload, runs bool) {
	r := envSpec.reader(args)
	for {
		o, more, err := r.next()
		if err != nil {
			return nil, nil, false
		}
		if !more {
			break
		}
		switch o.id {
		case "S":
			words, ok := envSplit(o.value)
			if !ok {
				return nil, nil, false
			}
			text := strings.TrimSpace("env " + strings.Join(words, " ") + " " + liveJoin(r.unread()))
			return nil, &payload{text: text}, true
		case "help", "version":
			return nil, nil, false
		}
	}
	rest = r.rest()
	if len(rest) > 0 && rest[0] == "-" {
		rest = rest[1:]
	}
	return rest, nil, true
}

// envSplit splits an env -S string as coreutils does: blanks separate
// words outside quotes; '...' is literal but for \\ and \'; "..." and
// bare text take the escapes \" \# \$ \' \\ \f \n \r \t \v, \_ (a
// separator, or a space inside "..."), and \c (the end); ${NAME} expands;
// a # starting a word ends the string. Each word comes back as shell
// text that reads as that word, ${NAME} left to expand. ok is false
// where env refuses the string.
func envSplit(s string) (words []string, ok bool) {
	var word, lit strings.Builder
	inWord, sep, sq, dq := false, true, false, false
	flush := func() {
		if lit.Len() > 0 {
			word.WriteString(quoteWord(lit.String()))
			lit.Reset()
		}
	}
	start := func() {
		if !sep {
			return
		}
		if inWord {
			flush()
			words = append(words, word.String())
			word.Reset()
		}
		inWord, sep = true, false
	}
	ended := false
scan:
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\'':
			if !dq {
				sq = !sq
				start()
				if word.Len() == 0 && lit.Len() == 0 {
					word.WriteString("''") // '' is an empty word
				}
				continue
			}
		case '"':
			if !sq {
				dq = !dq
				start()
				if word.Len() == 0 && lit.Len() == 0 {
					word.WriteString("''")
				}
				continue
			}
		case ' ', '\t', '\n', '\v', '\f', '\r':
			if !sq && !dq {
				sep = true
				continue
			}
		case '#':
			if sep {
				ended = true
				break scan
			}
		case '\\':
			if sq && (i+1 >= len(s) || s[i+1] != '\\' && s[i+1] != '\'') {
				break
			}
			i++
			if i >= len(s) {
				return nil, false
			}
			switch c = s[i]; c {
			case '"', '#', '$', '\'', '\\':
			case '_':
				if !dq {
					sep = true
					continue
				}
				c = ' '
			case 'c':
				if dq {
					return nil, false
				}
				ended = true
				break scan
			case 'f':
				c = '\f'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'v':
				c = '\v'
			default:
				return nil, false
			}
		case '$':
			if !sq {
				m := reEnvVar.Get().FindString(s[i:])
				if m == "" {
					return nil, false
				}
				start()
				flush()
				word.WriteString(`"` + m + `"`)
				i += len(m) - 1
				continue
			}
		}
		start()
		lit.WriteByte(c)
	}
	if !ended && (sq || dq) {
		return nil, false
	}
	if inWord {
		flush()
		words = append(words, word.String())
	}
	return words, true
}

var reEnvVar = lazyre.New(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// quoteWord quotes s so that the shell reads it back as one word, as it
// is.
func quoteWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// liveJoin quotes words a carrier runs as a command, keeping $NAME and
// ${NAME} live: the text stands for a variable unknown here, and a
// program named by one is still a name computed at run time.
func liveJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if !strings.Contains(w, "$") {
			q[i] = quoteWord(w)
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		for j := 0; j < len(w); j++ {
			switch c := w[j]; {
			case c == '$' && reLiveVar.Get().MatchString(w[j:]):
				b.WriteByte(c)
			case strings.IndexByte("$`\"\\", c) >= 0:
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		q[i] = b.String()
	}
	return strings.Join(q, " ")
}

var reLiveVar = lazyre.New(`^\$([A-Za-z_]|\{[A-Za-z_][A-Za-z0-9_]*\})`)

// reDuration is a DURATION timeout accepts: a number (strtod's forms)
// with an optional unit.
var reDuration = lazyre.New(`^[+-]?(?i:(\d+\.?\d*|\.\d+)(e[+-]?\d+)?|0x[0-9a-f]*\.?[0-9a-f]*(p[+-]?\d+)?|inf(inity)?|nan)[smhd]?$`)

// isDuration reports whether timeout could read s as its DURATION; a
// word only known when it runs might be one.
func isDuration(s string) bool { return strings.Contains(s, "$") || reDuration.Get().MatchString(s) }
