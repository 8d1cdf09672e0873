package approval

import (
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/lazy"
)

// tmux's global options (its own getopt, in order).
var tmuxSpec = optSpec{short: "2c:CDdf:hlL:NqS:T:uUvV", inOrder: true}

// tmuxLaunch is what a tmux command line runs: -c's shell command, and
// what each tmux command in it runs (commands are separated by words
// ending in ;).
func tmuxLaunch(args []string) launch {
	r := tmuxSpec.reader(args)
	var l launch
	for {
		o, more, err := r.next()
		if err != nil || !more {
			break // after an option this table lacks, the rest is read as commands
		}
		switch o.id {
		case "c":
			l.payloads = append(l.payloads, shellCode(o.value))
		case "V":
			return launch{}
		}
	}
	l.add(tmuxCommands(r.rest()))
	return l
}

// tmuxCommand is a tmux command that runs something: a shell command
// given as its arguments, keys typed into a pane, or tmux commands.
type tmuxCommand struct {
	name string
	spec optSpec
	run  func(opts []option, ops []string) launch
}

// tmuxTable holds the tmux commands that run something, built on first
// use (not a lazy.Value: building it refers back to it, through
// tmuxCommands).
var tmuxTable struct {
	once     sync.Once
	commands []tmuxCommand
}

func tmuxCommandTable() []tmuxCommand {
	tmuxTable.once.Do(func() { tmuxTable.commands = tmuxCommandsThatRun() })
	return tmuxTable.commands
}

func tmuxCommandsThatRun() []tmuxCommand {
	shellArgs := func(_ []option, ops []string) launch { return tmuxShell(ops) }
	firstShell := func(_ []option, ops []string) launch { return tmuxShell(ops[:min(len(ops), 1)]) }
	cmd := func(name, short string, run func([]option, []string) launch) tmuxCommand {
		return tmuxCommand{name: name, spec: optSpec{short: short, inOrder: true}, run: run}
	}
	return []tmuxCommand{
		cmd("new-session", "Ac:dDe:EF:f:n:Ps:t:x:Xy:", shellArgs),
		cmd("new-window", "abc:de:EF:kn:PSt:", shellArgs),
		cmd("split-window", "bB:c:de:EfF:hIkl:m:p:PR:s:S:t:T:vWZ", shellArgs),
		cmd("new-pane", "AbB:Cc:de:EfF:hIkKLMm:Op:PR:s:S:t:T:vWx:X:y:Y:Z", shellArgs),
		cmd("respawn-pane", "c:e:Ekt:", shellArgs),
		cmd("respawn-window", "c:e:Ekt:", shellArgs),
		cmd("display-popup", "Bb:Cc:d:e:Eh:kNs:S:t:T:w:x:y:", shellArgs),
		cmd("pipe-pane", "IOot:", firstShell),
		cmd("run-shell", "bd:Ct:Es:c:", func(opts []option, ops []string) launch {
			if len(ops) > 0 && hasOption(opts, "C") {
				return tmuxCommandString(ops[0])
			}
			return tmuxShell(ops[:min(len(ops), 1)])
		}),
		cmd("if-shell", "bFt:", func(opts []option, ops []string) launch {
			var l launch
			if len(ops) > 0 && !hasOption(opts, "F") {
				l = tmuxShell(ops[:1])
			}
			for _, c := range ops[min(len(ops), 1):] {
				l.add(tmuxCommandString(c))
			}
			return l
		}),
		cmd("confirm-before", "bc:p:t:y", func(_ []option, ops []string) launch {
			if len(ops) == 0 {
				return launch{}
			}
			return tmuxCommandString(ops[0])
		}),
		cmd("bind-key", "nrN:T:", func(_ []option, ops []string) launch {
			if len(ops) < 2 {
				return launch{}
			}
			return tmuxCommands(ops[1:])
		}),
		cmd("set-hook", "agpRt:uw", func(_ []option, ops []string) launch {
			if len(ops) < 2 {
				return launch{}
			}
			return tmuxCommandString(ops[1])
		}),
		cmd("send-keys", "c:FHKlMN:Rt:X", func(opts []option, ops []string) launch {
			if hasOption(opts, "X") {
				return launch{}
			}
			return typedText(typedKeys(ops, hasOption(opts, "l"), hasOption(opts, "H")))
		}),
	}
}

// tmuxShell is what tmux runs for a shell-command argument: one word
// through the default shell, several as the words of a command.
func tmuxShell(ops []string) launch {
	switch len(ops) {
	case 0:
		return launch{}
	case 1:
		return launch{payloads: []payload{shellCode(ops[0])}}
	}
	return launch{payloads: []payload{{text: liveJoin(ops)}}}
}

// tmuxCommands reads tmux commands given as words: a word that ends in
// ; (but not \;) ends a command.
func tmuxCommands(words []string) launch {
	var l launch
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			l.add(tmuxRun(cur))
		}
		cur = nil
	}
	for _, w := range words {
		switch {
		case strings.HasSuffix(w, `\;`):
			cur = append(cur, strings.TrimSuffix(w, `\;`)+";")
		case strings.HasSuffix(w, ";"):
			if w = strings.TrimSuffix(w, ";"); w != "" {
				cur = append(cur, w)
			}
			flush()
		default:
			cur = append(cur, w)
		}
	}
	flush()
	return l
}

// tmuxNames are every tmux command, each with its alias (- for none).
var tmuxNames = lazy.Of(tmuxNameList)

func tmuxNameList() []string {
	return strings.Fields(`attach-session attach bind-key bind break-pane breakp capture-pane capturep
	choose-buffer - choose-client - choose-tree - clear-history clearhist clear-prompt-history clearphist
	clock-mode - command-prompt - confirm-before confirm copy-mode - customize-mode - delete-buffer deleteb
	detach-client detach display-menu menu display-message display display-panes displayp display-popup popup
	find-window findw has-session has if-shell if join-pane joinp kill-pane killp kill-server - kill-session -
	kill-window killw last-pane lastp last-window last link-window linkw list-buffers lsb list-clients lsc
	list-commands lscm list-keys lsk list-panes lsp list-sessions ls list-windows lsw load-buffer loadb
	lock-client lockc lock-server lock lock-session locks move-pane movep move-window movew new-pane newp
	new-session new new-window neww next-layout nextl next-window next paste-buffer pasteb pipe-pane pipep
	previous-layout prevl previous-window prev refresh-client refresh rename-session rename rename-window renamew
	resize-pane resizep resize-window resizew respawn-pane respawnp respawn-window respawnw rotate-window rotatew
	run-shell run save-buffer saveb select-layout selectl select-pane selectp select-window selectw send-keys send
	send-prefix - server-access - set-buffer setb set-environment setenv set-hook - set-option set
	set-window-option setw show-buffer showb show-environment showenv show-hooks - show-messages showmsgs
	show-options show show-prompt-history showphist show-window-options showw source-file source split-window splitw
	start-server start suspend-client suspendc swap-pane swapp swap-window swapw switch-client switchc switch-mode -
	unbind-key unbind unlink-window unlinkw wait-for wait`)
}

// tmuxFind names the command a word stands for, as tmux finds it: an
// alias, else the one command whose name it begins (or is).
func tmuxFind(word string) string {
	found := ""
	names := tmuxNames.Get()
	for i := 0; i+1 < len(names); i += 2 {
		name, alias := names[i], names[i+1]
		switch {
		case alias == word:
			return name
		case name == word:
			return name
		case strings.HasPrefix(name, word) && found != "":
			found = "-" // ambiguous, unless the word is a full name
		case strings.HasPrefix(name, word):
			found = name
		}
	}
	if found == "-" {
		return ""
	}
	return found
}

func tmuxRun(words []string) launch {
	name := tmuxFind(words[0])
	table := tmuxCommandTable()
	for i := range table {
		c := &table[i]
		if c.name != name {
			continue
		}
		r := c.spec.reader(words[1:])
		var opts []option
		for {
			o, more, err := r.next()
			if err != nil || !more {
				break
			}
			opts = append(opts, o)
		}
		return c.run(opts, r.rest())
	}
	return launch{}
}

// tmuxCommandString is a command string tmux parses itself (if-shell's
// commands, run-shell -C, set-hook): each command, up to a ;, is judged
// as a tmux command line.
func tmuxCommandString(s string) launch {
	var l launch
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) != "" {
			l.payloads = append(l.payloads, payload{text: "tmux " + part, loose: true})
		}
	}
	return l
}

// typedText is what text typed into a terminal runs: its lines, judged
// as commands (loosely: the terminal may not be running a shell). A
// control key that edits the line (a deletion, a cursor move, a history
// recall) makes what runs unreadable from the text: that asks. C-c, C-d,
// C-l and C-z only end what was typed so far.
func typedText(text string) launch {
	var l launch
	edits := false
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r' || r == 0x03 || r == 0x04 || r == 0x0c || r == 0x1a:
			return '\n'
		case r < 0x20 || r == 0x7f:
			edits = true
			return '\n'
		}
		return r
	}, text)
	if edits {
		l.findings = append(l.findings, dgTypedEdits)
	}
	if strings.TrimSpace(text) != "" {
		l.payloads = append(l.payloads, payload{text: text, loose: true})
	}
	return l
}

// typedKeys is the text send-keys types: each word is a key name (tmux
// types the key) or text (typed as it is); -l takes every word as text,
// -H each as a byte in hex.
func typedKeys(keys []string, literal, hex bool) string {
	var b strings.Builder
	for _, k := range keys {
		switch {
		case hex:
			if n, err := strconv.ParseUint(k, 16, 8); err == nil {
				b.WriteByte(byte(n))
			}
		case literal:
			b.WriteString(k)
		default:
			b.WriteString(keyText(k))
		}
	}
	return b.String()
}

// keyNames are tmux's names of keys that are not characters; each stands
// here for what it types (a control character; ESC for the keys that
// move the cursor or recall history).
var keyNames = lazy.Of(keyNameTable)

func keyNameTable() map[string]string {
	names := map[string]string{"enter": "\r", "kpenter": "\r", "space": " ", "tab": "\t", "btab": "\x1b",
		"bspace": "\x7f", "escape": "\x1b", "up": "\x1b", "down": "\x1b", "left": "\x1b", "right": "\x1b",
		"home": "\x1b", "end": "\x1b", "ic": "\x1b", "dc": "\x1b", "insert": "\x1b", "delete": "\x1b",
		"npage": "\x1b", "ppage": "\x1b", "pagedown": "\x1b", "pageup": "\x1b", "pgdn": "\x1b", "pgup": "\x1b",
		"any": "\x1b"}
	// [NUL] ... [US]: the control characters tmux names by code.
	for code, name := range strings.Fields("nul soh stx etx eot enq asc bel bs - lf vt ff - so si dle dc1 dc2 dc3 dc4 nak syn etb can em sub - fs gs rs us") {
		if name != "-" {
			names["["+name+"]"] = string(rune(code))
		}
	}
	for i := 1; i <= 12; i++ {
		names["f"+strconv.Itoa(i)] = "\x1b"
	}
	for _, c := range "/*-+.0123456789" {
		names["kp"+string(c)] = "\x1b"
	}
	return names
}

// keyText is what one send-keys word types, read as tmux reads key
// names: modifiers (C-, M-, S-, ^), then one character or a key name; a
// word that names no key is typed as text.
func keyText(k string) string {
	s, ctrl, other := k, false, false
	if len(s) > 1 && s[0] == '^' {
		ctrl, s = true, s[1:]
	}
	for len(s) > 2 && s[1] == '-' && strings.IndexByte("CcMmSs", s[0]) >= 0 {
		if s[0]|0x20 == 'c' {
			ctrl = true
		} else {
			other = true
		}
		s = s[2:]
	}
	low := strings.ToLower(s)
	if v, err := strconv.ParseUint(strings.TrimPrefix(low, "0x"), 16, 21); err == nil && strings.HasPrefix(low, "0x") && s == k {
		return string(rune(v))
	}
	key, named := keyNames.Get()[low]
	switch {
	case !named && len(s) == 1 && s[0] >= 0x20 && s[0] < 0x7f:
		key = s
	case !named:
		return k // no key: the word is typed as text
	}
	switch {
	case other:
		return "\x1b"
	case ctrl && len(key) == 1 && key[0]|0x20 >= 'a' && key[0]|0x20 <= 'z':
		return string(rune(key[0]|0x20) - 'a' + 1)
	case ctrl:
		return "\x1b"
	}
	return key
}

// screenLaunch reads screen's command line as screen does, option
// letters in clusters: the words after the options are the command a
// new session (or window) runs; -X sends a screen command to a running
// session instead. -ls, -wipe, -v and a plain reattach run nothing.
func screenLaunch(args []string) launch {
	i, send, shell := 0, false, ""
options:
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			i++
			break options
		case a == "--version" || a == "--help":
			return launch{}
		case len(a) < 2 || a[0] != '-':
			break options
		}
		i++
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'c', 'p', 'e': // the value is the rest of the word or the next word
				if j == len(a)-1 {
					i++
				}
				j = len(a)
			case 'h', 't', 'T', 'S':
				i++
			case 's':
				if i < len(args) {
					shell = args[i]
				}
				i++
			case 'X', 'Q':
				send = true
			case 'w', 'v':
				return launch{}
			case 'l':
				if j+1 < len(a) && (a[j+1] == 's' || a[j+1] == 'i') {
					return launch{} // -ls, -list
				}
				if j+1 < len(a) && strings.IndexByte("n0y1a", a[j+1]) >= 0 {
					j++
				}
			case 'L':
				if a[j:] == "Logfile" {
					i++
					j = len(a)
				}
			case 'f':
				if j+1 < len(a) && strings.IndexByte("n0y1a", a[j+1]) >= 0 {
					j++
				}
			case 'r', 'R', 'x': // a session name may follow
				if i < len(args) && !strings.HasPrefix(args[i], "-") {
					i++
				}
			}
		}
	}
	if i > len(args) {
		return launch{}
	}
	ops := args[i:]
	switch {
	case send:
		return screenCommand(ops)
	case len(ops) > 0:
		return launch{argv: ops}
	case shell != "":
		return launch{payloads: []payload{{text: liveJoin([]string{shell})}}}
	}
	return launch{}
}

// screenCommand is what a screen command sent with -X runs: stuff types
// its text into the window, screen opens a window running a command,
// exec runs one with the window's input and output.
func screenCommand(words []string) launch {
	if len(words) == 0 {
		return launch{}
	}
	args := words[1:]
	switch strings.ToLower(words[0]) {
	case "stuff":
		return typedText(screenUnescape(strings.Join(args, " ")))
	case "screen":
		for len(args) > 0 {
			switch a := args[0]; {
			case a == "-h" || a == "-t" || a == "-T":
				args = args[min(2, len(args)):]
			case strings.HasPrefix(a, "-") || isDigits(a):
				args = args[1:]
			default:
				return launch{payloads: []payload{{text: liveJoin(args)}}}
			}
		}
	case "exec":
		if len(args) > 0 && strings.Trim(args[0], ".!:|") == "" {
			args = args[1:]
		}
		if len(args) > 0 {
			return launch{payloads: []payload{{text: liveJoin(args)}}}
		}
	}
	return launch{}
}

// screenUnescape reads the escapes of a string screen stuffs: \n and
// \r, octal \ooo, ^X for a control key (^M ends a line, ^? deletes),
// and \X for X itself.
func screenUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch d := s[i]; {
			case d == 'n':
				b.WriteByte('\n')
			case d == 'r':
				b.WriteByte('\r')
			case d >= '0' && d <= '7':
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 8)
				b.WriteByte(byte(n))
				i = j - 1
			default:
				b.WriteByte(d)
			}
		case c == '^' && i+1 < len(s):
			i++
			switch d := s[i]; {
			case d == '?':
				b.WriteByte(0x7f)
			case d|0x20 >= 'a' && d|0x20 <= 'z':
				b.WriteByte(d | 0x20 - 'a' + 1)
			default:
				b.WriteByte(0x1b)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
