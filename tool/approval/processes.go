package approval

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// pkill reads its options like procps: the first -SIGNAL argument (-9,
// -KILL, -sigterm) is the signal, the rest goes to getopt_long.
var pkillSpec = optSpec{short: "q:ecfg:G:inoO:P:s:t:u:U:xF:Lr:AvwhV", long: []longOpt{
	{"signal", requiredArg, "signal"}, {"queue", requiredArg, "q"}, {"echo", noArg, "e"}, {"count", noArg, "c"},
	{"full", noArg, "f"}, {"pgroup", requiredArg, "g"}, {"group", requiredArg, "G"}, {"ignore-case", noArg, "i"},
	{"newest", noArg, "n"}, {"oldest", noArg, "o"}, {"older", requiredArg, "O"}, {"parent", requiredArg, "P"},
	{"session", requiredArg, "s"}, {"terminal", requiredArg, "t"}, {"euid", requiredArg, "u"}, {"uid", requiredArg, "U"},
	{"exact", noArg, "x"}, {"pidfile", requiredArg, "F"}, {"logpidfile", noArg, "L"}, {"runstates", requiredArg, "r"},
	{"ignore-ancestors", noArg, "A"}, {"inverse", noArg, "v"}, {"cgroup", requiredArg, "cgroup"},
	{"ns", requiredArg, "ns"}, {"nslist", requiredArg, "nslist"}, {"help", noArg, "h"}, {"version", noArg, "V"},
}}

// pkillSelectors narrow pkill to processes by something else than a name.
var pkillSelectors = []string{"g", "G", "P", "s", "t", "u", "U", "F", "cgroup", "ns"}

var reSignalArg = lazyre.New(`(?i)^-([0-9]+|(sig)?(hup|int|quit|ill|trap|abrt|iot|bus|fpe|kill|usr1|segv|usr2|pipe|alrm|term|stkflt|chld|cld|cont|stop|tstp|ttin|ttou|urg|xcpu|xfsz|vtalrm|prof|winch|io|poll|pwr|sys|rtmin|rtmax)([+-][0-9]+)?)$`)

// processSamples are process names and command lines a pattern matching
// all of them matches every process.
var processSamples = []string{"a", "Z9", "systemd", "kworker/0:1", "/usr/lib/x --y=1 z"}

// pkill signals the processes whose name (with -f, command line) matches
// its pattern, as kill signals the processes it names: a pattern is not
// a question by itself. It asks when what it matches is not known here
// (a pattern computed at run time or that does not compile, processes
// picked only by user, group, session, ...), and is refused when its
// pattern matches every process, like kill -1.
func (d *detector) pkill(c command) {
	args := slices.Clone(c.args)
	if i := slices.IndexFunc(args, func(a string) bool { return reSignalArg.Get().MatchString(a) }); i >= 0 {
		args = slices.Delete(args, i, i+1)
	}
	opts, ops, err := pkillSpec.parse(args)
	if err != nil {
		d.add(dgKillPattern)
		return
	}
	selected, exact, fold := false, false, false
	for _, o := range opts {
		switch {
		case o.id == "h" || o.id == "V":
			return
		case o.id == "x":
			exact = true
		case o.id == "i":
			fold = true
		case slices.Contains(pkillSelectors, o.id):
			selected = true
		}
	}
	switch {
	case len(ops) > 1: // pkill takes one pattern; it refuses more
		return
	case len(ops) == 0:
		if selected {
			d.add(dgKillPattern)
		}
		return
	case strings.ContainsAny(ops[0], "$`"):
		d.add(dgKillPattern)
		return
	}
	pat := ops[0]
	if exact {
		pat = "^(?:" + pat + ")$"
	}
	if fold {
		pat = "(?i)" + pat
	}
	re, err := regexp.Compile(pat)
	switch {
	case err != nil:
		d.add(dgKillPattern)
	case !slices.ContainsFunc(processSamples, func(s string) bool { return !re.MatchString(s) }):
		if selected {
			d.add(dgKillPattern)
		} else {
			d.add(hlKillAll)
		}
	}
}

// killall reads its options like psmisc: an upper-case or numeric
// option is the signal, the rest goes to getopt_long.
var killallSpec = optSpec{short: "eIgy:o:ilqrs:u:vwn:Z:V", long: []longOpt{
	{"exact", noArg, "e"}, {"ignore-case", noArg, "I"}, {"process-group", noArg, "g"}, {"younger-than", requiredArg, "y"},
	{"older-than", requiredArg, "o"}, {"interactive", noArg, "i"}, {"list", noArg, "l"}, {"quiet", noArg, "q"},
	{"regexp", noArg, "r"}, {"signal", requiredArg, "s"}, {"user", requiredArg, "u"}, {"verbose", noArg, "v"},
	{"wait", noArg, "w"}, {"ns", requiredArg, "n"}, {"context", requiredArg, "Z"}, {"version", noArg, "V"},
	{"help", noArg, "help"},
}}

var reKillallSignal = lazyre.New(`^-([0-9]+|[A-Z][A-Z0-9+-]+)$`)

// killall asks: it kills every process of a name. Listing the signal
// names (-l) or printing its version (-V) kills nothing.
func (d *detector) killall(c command) {
	args := slices.DeleteFunc(slices.Clone(c.args), func(a string) bool { return reKillallSignal.Get().MatchString(a) })
	if opts, _, err := killallSpec.parse(args); err == nil &&
		slices.ContainsFunc(opts, func(o option) bool { return o.id == "l" || o.id == "V" || o.id == "help" }) {
		return
	}
	d.add(dgKillall)
}
