package approval

import (
	"path"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// segment checks one simple command.
func (d *detector) segment(c command, seg segment, depth int) {
	for _, r := range seg.redirects {
		d.writeTarget(cleanTarget(strings.ToLower(r)))
	}
	if c.lookup || c.name == "" {
		return
	}
	for _, f := range c.findings {
		d.add(f)
	}
	if strings.HasPrefix(c.name, "mkfs") {
		d.add(hlFormat)
	}
	low := make([]string, len(c.args))
	for i, a := range c.args {
		low[i] = strings.ToLower(a)
	}
	ops := c.operands()
	switch c.name {
	case "rm":
		d.rm(c)
	case "chmod":
		d.chmod(c)
	case "chown":
		d.chown(c)
	case "chattr":
		if len(ops) > 1 {
			d.add(dgChattr)
		}
	case "mke2fs", "newfs":
		d.add(hlFormat)
	case "mkswap":
		for _, o := range ops {
			if isBlockDevice(o) {
				d.add(hlFormat)
			}
		}
	case "dd":
		d.dd(low)
	case "truncate":
		if len(ops) > 0 {
			d.add(dgWipeFile)
		}
	case "wipefs", "blkdiscard", "shred", "sgdisk", "sfdisk", "fdisk", "parted":
		for _, o := range ops {
			if isBlockDevice(o) && (c.name != "sgdisk" || c.hasFlag("Zo", "--zap-all", "--clear")) &&
				(c.name != "fdisk" && c.name != "parted" && c.name != "sfdisk" || !c.hasFlag("l", "--list")) {
				d.add(hlWipeDevice)
			} else if c.name == "shred" {
				d.add(dgWipeFile)
			}
		}
	case "diskutil":
		if len(ops) > 0 && reDiskutil.Get().MatchString(strings.ToLower(ops[0])) {
			d.add(hlDiskutilErase)
		}
	case "shutdown", "reboot", "halt", "poweroff":
		d.add(hlPower)
	case "kexec":
		if c.hasFlag("e", "--exec") {
			d.add(hlPower)
		}
	case "init", "telinit":
		if len(ops) > 0 && (ops[0] == "0" || ops[0] == "6") {
			d.add(hlPower)
		}
	case "systemctl":
		d.systemctl(ops)
	case "service":
		if len(ops) > 1 && slices.Contains([]string{"stop", "restart"}, ops[1]) {
			d.add(dgServiceStop)
		}
	case "kill":
		d.kill(c, seg)
	case "pkill":
		d.pkill(c)
		if slices.ContainsFunc(low, func(a string) bool { return a == "-9" || a == "-kill" || a == "-sigkill" }) ||
			argAfter(low, "--signal", "9", "kill", "sigkill") {
			d.add(dgForceKill)
		}
	case "killall":
		d.killall(c)
	case "tee":
		for _, o := range ops {
			d.writeTarget(cleanTarget(strings.ToLower(o)))
		}
		if len(ops) > 0 && slices.Contains(seg.inputs, "/dev/null") {
			d.add(dgWipeFile)
		}
	case "cp", "install", "rsync":
		if len(ops) > 1 {
			d.writeTarget(cleanTarget(strings.ToLower(ops[len(ops)-1])))
			if ops[0] == "/dev/null" {
				d.add(dgWipeFile)
			}
		}
	case "mv":
		// Moving a credential away destroys it as surely as overwriting it.
		for _, o := range ops {
			d.writeTarget(cleanTarget(strings.ToLower(o)))
		}
	case "ln":
		if len(ops) > 1 {
			d.writeTarget(cleanTarget(strings.ToLower(ops[len(ops)-1])))
			if ops[0] == "/dev/null" && c.hasFlag("f", "--force") {
				d.add(dgWipeFile)
			}
		}
	case "sed":
		d.sed(c)
	case "find":
		d.find(c, depth)
	case "xargs":
		d.xargs(c, depth)
	case "git":
		d.git(c, depth)
	case "docker", "podman", "nerdctl":
		d.container(c)
	}
}

func (d *detector) rm(c command) {
	recursive := c.hasFlag("rR", "--recursive")
	for _, o := range c.operands() {
		d.deleteTarget(d.resolvePath(o), recursive)
	}
	if recursive {
		d.add(dgRecursiveDelete)
	}
}

// deleteTarget checks one path (clean, in its own case) a command
// deletes.
func (d *detector) deleteTarget(p string, recursive bool) {
	t := strings.ToLower(p)
	switch {
	case recursive && t == "/":
		d.add(hlDeleteRoot)
	case recursive && systemDirs.Get()[t]:
		d.add(hlDeleteSystem)
	case recursive && t == "~":
		d.add(hlDeleteHome)
	case !recursive && strings.HasPrefix(t, "/") && hasAnyPrefix(t+"/", systemFilePrefixes) && !d.inRoot(p):
		d.add(dgDeleteSystem)
	}
}

// userRoots keeps the writable roots that can hold a user's work: clean
// absolute paths that are neither the root nor a system directory.
func userRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if !strings.HasPrefix(r, "/") {
			continue
		}
		r = path.Clean(r)
		low := strings.ToLower(r)
		if r == "/" || systemDirs.Get()[low] || slices.Contains(systemFilePrefixes, low+"/") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// inRoot reports whether the clean path p is a writable root or lies
// inside one.
func (d *detector) inRoot(p string) bool {
	for _, r := range d.roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// resolvePath is cleanTarget, relative to the directory the command
// cd'd to when that is known: cd / && rm -rf * deletes /.
func (d *detector) resolvePath(p string) string {
	if d.cwd != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$") {
		p = path.Join(d.cwd, p)
	}
	return cleanTarget(p)
}

func (d *detector) cd(c command) {
	ops := c.operands()
	switch {
	case len(ops) == 0:
		d.cwd = "~"
	case strings.HasPrefix(ops[0], "/") || ops[0] == "~" || strings.HasPrefix(ops[0], "~/"):
		d.cwd = cleanTarget(ops[0])
	case d.cwd != "" && ops[0] != "-" && !strings.HasPrefix(ops[0], "$"):
		d.cwd = cleanTarget(path.Join(d.cwd, ops[0]))
	default:
		d.cwd = ""
	}
}

var reOctalMode = lazyre.New(`^[0-7]{3,4}$`)
var reSymbolicMode = lazyre.New(`^[ugoa]*[+=][rwxxst]*$`)

func (d *detector) chmod(c command) {
	ops := c.operands()
	if len(ops) == 0 {
		return
	}
	mode := ops[0]
	recursive := c.hasFlag("R", "--recursive")
	if reOctalMode.Get().MatchString(mode) {
		if last := mode[len(mode)-1]; last == '2' || last == '3' || last == '6' || last == '7' {
			d.add(dgWorldWritable)
		}
		if recursive && strings.Trim(mode, "0") == "" {
			d.add(dgChmodNone)
		}
		return
	}
	if recursive && (mode == "a-rwx" || mode == "ugo-rwx" || mode == "=" || mode == "a=") {
		d.add(dgChmodNone)
	}
	for _, clause := range strings.Split(mode, ",") {
		if !reSymbolicMode.Get().MatchString(clause) {
			continue
		}
		i := strings.IndexAny(clause, "+=")
		who, perm := clause[:i], clause[i+1:]
		if strings.ContainsAny(who, "oa") && strings.Contains(perm, "w") {
			d.add(dgWorldWritable)
		}
	}
}

func (d *detector) chown(c command) {
	if !c.hasFlag("R", "--recursive") {
		return
	}
	// The first operand is the new owner.
	ops := c.operands()
	if len(ops) == 0 {
		return
	}
	d.add(dgChownRecursive)
	o := strings.ToLower(ops[0])
	if o == "root" || strings.HasPrefix(o, "root:") || strings.HasPrefix(o, "0:") || o == "0" {
		d.add(dgChownRoot)
	}
}

// dd asks only when a block device is read or written: dd between
// regular files is a copy like cp.
func (d *detector) dd(low []string) {
	for _, a := range low {
		if v, ok := strings.CutPrefix(a, "of="); ok {
			t := cleanTarget(v)
			d.writeTarget(t)
			if isBlockDevice(t) {
				d.add(dgDiskCopy)
			}
		}
		if v, ok := strings.CutPrefix(a, "if="); ok && isBlockDevice(cleanTarget(v)) {
			d.add(dgDiskCopy)
		}
	}
}

var powerTargets = lazy.Of(powerTargetSet)

func powerTargetSet() map[string]bool {
	return map[string]bool{"poweroff.target": true, "reboot.target": true, "halt.target": true, "kexec.target": true,
		"poweroff": true, "reboot": true, "halt": true, "kexec": true}
}

func (d *detector) systemctl(ops []string) {
	if len(ops) == 0 {
		return
	}
	switch strings.ToLower(ops[0]) {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate":
		d.add(hlPower)
	case "isolate", "start":
		for _, o := range ops[1:] {
			if powerTargets.Get()[strings.ToLower(o)] {
				d.add(hlPower)
			}
		}
		if strings.ToLower(ops[0]) == "isolate" {
			d.add(dgServiceStop)
		}
	case "stop", "restart", "disable", "mask", "kill", "try-restart", "reload-or-restart":
		d.add(dgServiceStop)
	}
}

func (d *detector) kill(c command, seg segment) {
	// A last argument of -1 is the pid "every process" (kill -9 -1,
	// kill -- -1); `kill -1 PID` is signal 1 to PID and is fine.
	if n := len(c.args); n > 0 && c.args[n-1] == "-1" {
		d.add(hlKillAll)
	}
	for i := c.at + 1; i < len(seg.dyn); i++ {
		if seg.dyn[i] && reProcessLookup.Get().MatchString(seg.raw[i]) {
			d.add(dgKillPattern)
		}
	}
}

var reProcessLookup = lazyre.New(`\b(pgrep|pidof|ps|lsof|fuser|jobs)\b`)

var reSedDeleteAll = lazyre.New(`^\s*((1|0)\s*,\s*\$\s*)?d\s*;?\s*$`)

func (d *detector) sed(c command) {
	if !c.hasFlag("i", "--in-place") {
		return
	}
	ops := c.operands()
	for i, a := range c.args {
		if (a == "-e" || a == "--expression") && i+1 < len(c.args) {
			ops = append(ops, c.args[i+1])
		}
	}
	for _, o := range ops {
		if reSedDeleteAll.Get().MatchString(o) {
			d.add(dgWipeFile)
		}
		d.writeTarget(cleanTarget(strings.ToLower(o)))
	}
}

// findFilters narrow what find acts on; without one, find / -delete
// deletes everything.
var findFilters = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-newer",
	"-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-size", "-user", "-group", "-perm", "-empty", "-lname", "-ilname",
	"-inum", "-samefile", "-links", "-uid", "-gid", "-nouser", "-nogroup", "-prune"}

func (d *detector) find(c command, depth int) {
	var starts []string
	for _, a := range c.args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		starts = append(starts, a)
	}
	deletes := slices.Contains(c.args, "-delete")
	if deletes {
		d.add(dgFindDelete)
	}
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		if a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(c.args) && c.args[j] != ";" && c.args[j] != "+" {
			j++
		}
		words := c.args[i+1 : j]
		if len(words) > 0 && path.Base(words[0]) == "rm" {
			d.add(dgFindExecRm)
			deletes = deletes || slices.ContainsFunc(words, func(w string) bool { return w == "-rf" || w == "-r" || w == "-fr" || w == "-R" })
		}
		d.runWords(words, depth)
		i = j
	}
	if deletes && !slices.ContainsFunc(c.args, func(a string) bool { return slices.Contains(findFilters, a) }) {
		for _, s := range starts {
			d.deleteTarget(d.resolvePath(s), true)
		}
	}
}

// xargsArgFlags are xargs options that take a value.
var xargsArgFlags = []string{"-n", "-I", "-L", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file", "-i"}

func (d *detector) xargs(c command, depth int) {
	for _, a := range c.args {
		if path.Base(a) == "rm" {
			d.add(dgXargsRm)
		}
	}
	args := c.args
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if slices.Contains(xargsArgFlags, args[0]) && len(args) > 1 && args[0] != "-i" {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	if name := path.Base(args[0]); name == "kill" {
		d.add(dgKillPattern)
	}
	d.runWords(args, depth)
}

// runWords checks words another program runs as a command (find -exec,
// xargs); a shell run that way is fed code.
func (d *detector) runWords(words []string, depth int) {
	if len(words) == 0 {
		return
	}
	c := normalizeWords(words)
	if shells.Get()[c.name] && len(c.payloads) > 0 {
		d.add(dgShellStdin)
	}
	d.segment(c, segment{words: words}, depth)
	for _, p := range c.payloads {
		d.run(p, depth+1)
	}
	d.interpreter(c, segment{}, depth)
}

func (d *detector) container(c command) {
	args := c.args
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	if len(args) > 0 && (args[0] == "container" || args[0] == "compose") {
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	sub := command{name: args[0], args: args[1:]}
	switch sub.name {
	case "stop", "kill", "restart", "down":
		d.add(dgContainerStop)
	case "rm":
		if sub.hasFlag("f", "--force") {
			d.add(dgContainerStop)
		}
	}
}

// writeTarget checks a file a command writes to.
func (d *detector) writeTarget(t string) {
	switch {
	case isBlockDevice(t):
		d.add(hlBlockWrite)
	case t == "/proc/sysrq-trigger":
		d.add(hlPower)
	case strings.HasPrefix(t, "/etc/") || t == "/etc" || strings.HasPrefix(t, "/private/etc/"):
		d.add(dgSystemConfig)
	case isSensitive(t):
		d.add(dgSensitiveFile)
	}
}

var sensitiveNames = lazy.Of(sensitiveNameSet)

func sensitiveNameSet() map[string]bool {
	return map[string]bool{
		".bashrc": true, ".zshrc": true, ".profile": true, ".bash_profile": true,
		".zprofile": true, ".bash_login": true, ".zshenv": true, ".netrc": true,
		".pgpass": true, ".npmrc": true, ".pypirc": true,
	}
}

// credentialDirs are stores under the home directory where any write
// changes credentials.
var credentialDirs = []string{"/.ssh", "/.aws", "/.config/gcloud", "/.docker", "/.kube", "/.gnupg", "/.azure"}

// hermesFiles are the files in the Hermes home that hold secrets or
// the approval policy.
var hermesFiles = []string{"/.env", "/auth.json", "/auth", "/config.yaml"}

func isSensitive(t string) bool {
	t = strings.ToLower(t)
	if sensitiveNames.Get()[path.Base(t)] {
		return true
	}
	home := ""
	switch {
	case strings.HasPrefix(t, "~"):
		home, t = "~", t[1:]
	case strings.HasPrefix(t, "/root/"):
		home, t = "/root", t[5:]
	case strings.HasPrefix(t, "/home/"):
		if i := strings.IndexByte(t[6:], '/'); i >= 0 {
			home, t = t[:6+i], t[6+i:]
		}
	}
	if home == "" {
		for _, h := range []string{"$hermes_home", "${hermes_home}"} {
			if rest, ok := strings.CutPrefix(t, h); ok {
				return slices.Contains(hermesFiles, rest)
			}
		}
		return false
	}
	for _, p := range credentialDirs {
		if t == p || strings.HasPrefix(t, p+"/") {
			return true
		}
	}
	rest, ok := strings.CutPrefix(t, "/.hermes")
	return ok && slices.Contains(hermesFiles, rest)
}
