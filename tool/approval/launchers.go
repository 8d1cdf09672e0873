package approval

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// launch is what a program that starts another command runs: words it
// runs as a command, shell code, and what it does with its standard
// input.
type launch struct {
	// argv is a command run as words: the launcher's last arguments, so
	// that the command is read again for wrappers and computed names.
	argv []string
	// payloads are shell code it runs (or types into a terminal).
	payloads []payload
	// stdin, when set, is what the launcher runs of its standard input:
	// a shell reading its commands from it (su with no command, at), or
	// a command line per line (parallel).
	stdin func(text string) []payload
	// findings are asked whatever the command runs.
	findings []Finding
}

// launchers read the command lines of programs that run a command they
// are given in their arguments, each as that program reads its options.
var launchers = lazy.Of(launcherTable)

func launcherTable() map[string]func(args []string) launch {
	return map[string]func(args []string) launch{
		"su":          func(args []string) launch { return suLaunch("su", args) },
		"runuser":     func(args []string) launch { return suLaunch("runuser", args) },
		"sudo":        sudoLaunch,
		"doas":        doasLaunch,
		"pkexec":      pkexecLaunch,
		"run0":        run0Launch,
		"flock":       flockLaunch,
		"unshare":     unshareLaunch,
		"setpriv":     setprivLaunch,
		"nsenter":     nsenterLaunch,
		"sg":          sgLaunch,
		"newgrp":      newgrpLaunch,
		"script":      scriptLaunch,
		"watch":       watchLaunch,
		"systemd-run": systemdRunLaunch,
		"at":          atLaunch,
		"batch":       atLaunch,
		"tmux":        tmuxLaunch,
		"screen":      screenLaunch,
		"parallel":    parallelLaunch,
	}
}

// add joins what m runs to what l runs.
func (l *launch) add(m launch) {
	l.payloads = append(l.payloads, m.payloads...)
	l.findings = append(l.findings, m.findings...)
	switch first := l.stdin; {
	case m.stdin == nil:
	case first == nil:
		l.stdin = m.stdin
	default:
		l.stdin = func(text string) []payload { return append(first(text), m.stdin(text)...) }
	}
}

// shellStdin is a shell reading its commands from standard input.
func shellStdin(text string) []payload { return []payload{{text: text}} }

// shellCode is code a launcher hands to sh -c, which gets $0 = sh.
func shellCode(code string) payload { return payload{text: code, params: []string{"sh"}} }

// anyStart is what a launcher runs when its options cannot be read (an
// option these tables do not know, perhaps from a newer version than
// they describe): every later word that could start the command is
// judged as its start, rather than trusting the launcher to refuse.
func anyStart(args []string) launch {
	var l launch
	for i, a := range args {
		if a != "" && a[0] != '-' {
			l.payloads = append(l.payloads, payload{text: liveJoin(args[i:])})
		}
	}
	return l
}

// sudo reads its options with getopt_long, stopping at the command
// (sudo 1.9).
var sudoSpec = optSpec{short: "Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv", inOrder: true,
	longText: "askpass:A auth-type=:a background:b bell:B close-from=:C login-class=:c chdir=:D preserve-env==:E " +
		"edit:e group=:g set-home:H help:h host= login:i remove-timestamp:K reset-timestamp:k list:l " +
		"no-update:N non-interactive:n preserve-groups:P prompt=:p chroot=:R role=:r stdin:S shell:s " +
		"type=:t command-timeout=:T other-user=:U user=:u version:V validate:v"}

// sudoLaunch is what sudo runs: the words after its options and the
// NAME=value words it takes among them; with no command, a root shell
// (-s, -i) that reads its commands from standard input. -l, -e, -v, -K,
// -V and -h run nothing.
func sudoLaunch(args []string) launch {
	r := sudoSpec.reader(args)
	ticket, shell := false, false
	for {
		o, more, err := r.next()
		if err != nil {
			return anyStart(args)
		}
		if !more {
			// NAME=value words may come between options.
			if r.i < len(args) && r.sep < 0 && isEnvar(args[r.i]) {
				r.i++
				continue
			}
			break
		}
		switch o.id {
		case "h":
			// -h HOST only when it is -h alone and a word follows it.
			if o.value == "" && args[r.i-1] == "-h" && r.i < len(args) && !strings.HasPrefix(args[r.i], "-") && !isEnvar(args[r.i]) {
				r.i++
				continue
			}
			if o.value == "" {
				return launch{}
			}
		case "l", "e", "v", "K", "V":
			return launch{}
		case "k":
			ticket = true
		case "s", "i":
			shell = true
		}
	}
	ops := r.rest()
	switch {
	case len(ops) > 0:
		return launch{argv: ops}
	case ticket && !shell:
		return launch{}
	}
	return launch{stdin: shellStdin}
}

func isEnvar(a string) bool { return !strings.HasPrefix(a, "/") && strings.Contains(a, "=") }

// doas (OpenBSD, opendoas): -C checks a configuration, -L clears the
// persisted authentication, -s runs a shell.
var doasSpec = optSpec{short: "C:Lnsu:", inOrder: true}

func doasLaunch(args []string) launch {
	opts, ops, err := doasSpec.parse(args)
	if err != nil {
		return anyStart(args)
	}
	shell := false
	for _, o := range opts {
		switch o.id {
		case "C", "L":
			return launch{}
		case "s":
			shell = true
		}
	}
	switch {
	case len(ops) > 0:
		return launch{argv: ops}
	case shell:
		return launch{stdin: shellStdin}
	}
	return launch{}
}

// pkexecLaunch reads pkexec's few options as pkexec does, word by word
// up to the program; without one it runs the user's shell as root.
func pkexecLaunch(args []string) launch {
	i := 0
	for ; i < len(args); i++ {
		switch args[i] {
		case "--help", "--version":
			return launch{}
		case "--user", "-u":
			i++
			continue
		case "--disable-internal-agent", "--keep-cwd":
			continue
		}
		break
	}
	switch {
	case i > len(args):
		return launch{}
	case i == len(args):
		return launch{stdin: shellStdin}
	}
	return launch{argv: args[i:]}
}

// run0 is systemd-run's sudo mode.
var run0Spec = optSpec{short: "hVu:g:D:a:", inOrder: true,
	longText: "help:h version:V no-ask-password machine= unit= property= description= slice= slice-inherit " +
		"user=:u group=:g nice= chdir=:D setenv= background= pty pipe shell-prompt-prefix= lightweight= area=:a"}

func run0Launch(args []string) launch {
	r := run0Spec.reader(args)
	var l launch
	for {
		o, more, err := r.next()
		if err != nil {
			return anyStart(args)
		}
		if !more {
			break
		}
		switch o.id {
		case "h", "V":
			return launch{}
		case "property":
			l.payloads = append(l.payloads, execProperty(o.value)...)
		}
	}
	if ops := r.rest(); len(ops) > 0 {
		l.argv = ops
	} else {
		l.stdin = shellStdin
	}
	return l
}

// flock (util-linux): flock [options] FILE COMMAND [ARGS...], flock
// [options] FILE -c COMMAND, flock [options] FD (runs nothing); newer
// versions take --fd FD COMMAND and -c COMMAND among the options.
var flockSpec = optSpec{short: "sexnoFuw:E:hV", inOrder: true,
	longText: "shared:s exclusive:x unlock:u nonblocking:n nb:n timeout=:w wait=:w conflict-exit-code=:E close:o " +
		"no-fork:F verbose fcntl start= length= fd= help:h version:V"}

func flockLaunch(args []string) launch {
	r := flockSpec.reader(args)
	command, fd := false, false
	for {
		if r.cluster == "" && r.i < len(args) && (args[r.i] == "-c" || args[r.i] == "--command") {
			command = true
			r.i++
			continue
		}
		o, more, err := r.next()
		if err != nil {
			return anyStart(args)
		}
		if !more {
			break
		}
		switch o.id {
		case "h", "V":
			return launch{}
		case "fd":
			fd = true
		}
	}
	ops := r.rest()
	isCommand := func(s string) bool { return s == "-c" || s == "--command" }
	switch {
	case command && len(ops) == 1:
		return launch{payloads: []payload{shellCode(ops[0])}}
	case command:
	case fd && len(ops) > 0:
		return launch{argv: ops}
	case fd:
	case len(ops) == 3 && isCommand(ops[1]):
		return launch{payloads: []payload{shellCode(ops[2])}}
	case len(ops) > 1 && !isCommand(ops[1]):
		return launch{argv: ops[1:]}
	}
	return launch{}
}

// unshare (util-linux) runs its operands, or ${SHELL:-/bin/sh}.
var unshareSpec = optSpec{short: "fhVmuinpCTUrR:w:S:G:cl:", inOrder: true,
	longText: "help:h version:V mount==:m uts==:u ipc==:i net==:n pid==:p user==:U cgroup==:C time==:T fork:f " +
		"kill-child== forward-signals mount-proc== mount-binfmt== map-user= map-users= map-group= map-groups= " +
		"map-root-user:r map-current-user:c map-auto map-subids owner= propagation= setgroups= keep-caps " +
		"setuid=:S setgid=:G root=:R wd=:w monotonic= boottime= load-interp=:l clear-env whitelist-env="}

func unshareLaunch(args []string) launch {
	opts, ops, err := unshareSpec.parse(args)
	if err != nil {
		return anyStart(args)
	}
	if hasOption(opts, "h", "V") {
		return launch{}
	}
	if len(ops) == 0 {
		return launch{stdin: shellStdin}
	}
	return launch{argv: ops}
}

// setpriv (util-linux) runs its operands; -d only prints.
var setprivSpec = optSpec{short: "dhV", inOrder: true,
	longText: "dump:d nnp no-new-privs inh-caps= ambient-caps= list-caps ruid= euid= rgid= egid= reuid= regid= " +
		"clear-groups keep-groups init-groups groups= bounding-set= securebits= pdeathsig= ptracer= " +
		"selinux-label= apparmor-profile= landlock-access= landlock-rule= landlock-support " +
		"list-landlock-access list-landlock-rights= seccomp-filter= help:h reset-env version:V"}

func setprivLaunch(args []string) launch {
	opts, ops, err := setprivSpec.parse(args)
	if err != nil {
		return anyStart(args)
	}
	if hasOption(opts, "d", "h", "V") || len(ops) == 0 {
		return launch{}
	}
	return launch{argv: ops}
}

// nsenter (util-linux) runs its operands in another process's
// namespaces, or, with none, the user's shell there.
var nsenterSpec = optSpec{short: "ahVt:m::u::i::n::N:p::C::U::T::S:G:r::w::W::ecFZ", inOrder: true,
	longText: "all:a help:h version:V target=:t mount==:m uts==:u ipc==:i net==:n net-socket=:N pid==:p user==:U " +
		"cgroup==:C time==:T setuid=:S setgid=:G root==:r wd==:w wdns==:W env:e no-fork:F join-cgroup:c " +
		"preserve-credentials keep-caps user-parent follow-context:Z"}

func nsenterLaunch(args []string) launch {
	opts, ops, err := nsenterSpec.parse(args)
	if err != nil {
		return anyStart(args)
	}
	if hasOption(opts, "h", "V") {
		return launch{}
	}
	if len(ops) == 0 {
		return launch{stdin: shellStdin, findings: []Finding{dgNamespaceShell}}
	}
	return launch{argv: ops}
}

func hasOption(opts []option, ids ...string) bool {
	for _, o := range opts {
		for _, id := range ids {
			if o.id == id {
				return true
			}
		}
	}
	return false
}

// sgLaunch reads sg [-] GROUP [[-c] COMMAND] as shadow's sg does: the
// one word after the group (or after its -c) is run by /bin/sh -c;
// without it, sg runs a shell.
func sgLaunch(args []string) launch {
	if len(args) > 0 && (args[0] == "-" || args[0] == "-l") {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return launch{}
	}
	args = args[1:] // the group
	switch {
	case len(args) == 0:
		return launch{stdin: shellStdin}
	case len(args) > 1 && args[0] == "-c":
		return launch{payloads: []payload{shellCode(args[1])}}
	}
	return launch{payloads: []payload{shellCode(args[0])}}
}

// newgrp runs a shell, which reads its commands from standard input.
func newgrpLaunch([]string) launch { return launch{stdin: shellStdin} }

// script (util-linux) runs $SHELL -c with the last -c value, or (2.42
// and later) the words after -- joined by spaces; without a command,
// an interactive shell, which reads what script is given on standard
// input. Options may follow the file operand.
var scriptSpec = optSpec{short: "aB:c:eE:fI:O:o:qm:T:t::Vh",
	longText: "append:a command=:c echo=:E return:e flush:f force log-in=:I log-out=:O log-io=:B log-timing=:T " +
		"logging-format=:m output-limit=:o quiet:q timing==:t version:V help:h"}

func scriptLaunch(args []string) launch {
	r := scriptSpec.reader(args)
	var l launch
	cmd, hasCmd := "", false
	for {
		o, more, err := r.next()
		if err != nil {
			return anyStart(args)
		}
		if !more {
			break
		}
		switch o.id {
		case "c":
			cmd, hasCmd = o.value, true
		case "h", "V":
			return launch{}
		}
	}
	if hasCmd {
		l.payloads = append(l.payloads, shellCode(cmd))
	}
	if r.sep >= 0 && r.sep < len(r.operands) {
		l.payloads = append(l.payloads, shellCode(strings.Join(r.operands[r.sep:], " ")))
	}
	if len(l.payloads) == 0 {
		l.stdin = shellStdin
	}
	return l
}

// watch (procps) runs its operands joined by spaces through sh -c, or
// as words with -x.
var watchSpec = optSpec{short: "bcCd::eghn:pq:rtwxv", inOrder: true,
	longText: "beep:b color:c no-color:C differences==:d errexit:e chgexit:g equexit=:q interval=:n precise:p " +
		"no-rerun:r no-title:t no-wrap:w exec:x help:h version:v"}

func watchLaunch(args []string) launch {
	opts, ops, err := watchSpec.parse(args)
	if err != nil {
		return anyStart(args)
	}
	switch {
	case hasOption(opts, "h", "v") || len(ops) == 0:
		return launch{}
	case hasOption(opts, "x"):
		return launch{argv: ops}
	}
	return launch{payloads: []payload{shellCode(strings.Join(ops, " "))}}
}

// systemd-run runs its operands as a transient unit (or scope), and the
// command lines of Exec*= properties it sets; --shell runs $SHELL.
var systemdRunSpec = optSpec{short: "hrC:H:M:E:p:tPqGdSu:", inOrder: true,
	longText: "help:h version user system capsule=:C scope unit=:u description= slice= slice-inherit " +
		"remain-after-exit:r expand-environment= send-sighup host=:H machine=:M service-type= wait uid= gid= " +
		"nice= setenv=:E property=:p tty:t pty:t pipe:P quiet:q on-active= on-boot= on-startup= " +
		"on-unit-active= on-unit-inactive= on-calendar= on-timezone-change on-clock-change timer-property= " +
		"path-property= socket-property= no-block no-ask-password collect:G working-directory= same-dir:d " +
		"shell:S job-mode= ignore-failure background= json="}

func systemdRunLaunch(args []string) launch {
	r := systemdRunSpec.reader(args)
	var l launch
	shell := false
	for {
		o, more, err := r.next()
		if err != nil {
			return anyStart(args)
		}
		if !more {
			break
		}
		switch o.id {
		case "h", "version":
			return launch{}
		case "p", "timer-property", "path-property", "socket-property":
			l.payloads = append(l.payloads, execProperty(o.value)...)
		case "S":
			shell = true
		}
	}
	if ops := r.rest(); len(ops) > 0 {
		l.argv = ops
	} else if shell {
		l.stdin = shellStdin
	}
	return l
}

// execProperty returns the command line a unit property runs
// (ExecStart=, ExecStopPost=, ...), without systemd's prefixes (@, -,
// :, +, !, |); after @ the second word is only the program's argv[0].
func execProperty(prop string) []payload {
	name, val, ok := strings.Cut(prop, "=")
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "execstart", "execstartpre", "execstartpost", "execcondition", "execreload", "execstop", "execstoppost":
	default:
		return nil
	}
	if !ok {
		return nil
	}
	val = strings.TrimSpace(val)
	rest := strings.TrimLeft(val, "@-:+!|")
	if strings.Contains(val[:len(val)-len(rest)], "@") {
		if f := strings.Fields(rest); len(f) > 1 {
			rest = strings.Join(append(f[:1:1], f[2:]...), " ")
		}
	}
	return []payload{{text: rest, loose: true}}
}

// at and batch read the job, a shell script, from standard input unless
// -f names a file; -l, -r, -d, -c, -V and -h only list, remove or show
// jobs.
var atSpec = optSpec{short: "q:f:MmvlrdhVbct:"}

func atLaunch(args []string) launch {
	opts, _, err := atSpec.parse(args)
	if err == nil {
		for _, o := range opts {
			switch o.id {
			case "l", "r", "d", "c", "V", "h":
				return launch{}
			case "f":
				if o.value != "/dev/stdin" && o.value != "-" {
					return launch{}
				}
			}
		}
	}
	return launch{stdin: shellStdin}
}
