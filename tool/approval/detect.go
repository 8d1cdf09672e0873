package approval

import (
	"encoding/base64"
	"path"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// maxDepth bounds how deeply carriers (sh -c, eval, substitutions, decoded
// payloads) are followed; deeper nesting is itself suspicious.
const maxDepth = 6

// Check returns every pattern the command matches, hardline findings
// first, each key once. An empty result means the command is harmless.
//
// Commands are matched by what they run, not by their text: quoting,
// backslashes, $IFS, wrappers (sudo, env, nohup, ...), full program paths
// and shell carriers (sh -c, eval, $(...), echo ... | sh, base64-decoded
// pipelines) are undone first, while words that are only data stay data:
// echo "rm -rf /" is harmless, sh -c "rm -rf /" is refused.
func Check(cmd string) []Finding {
	var d detector
	d.check(cmd, 0)
	slices.SortStableFunc(d.out, func(a, b Finding) int {
		switch {
		case a.Hardline == b.Hardline:
			return 0
		case a.Hardline:
			return -1
		}
		return 1
	})
	return d.out
}

type detector struct {
	out  []Finding
	seen map[string]bool // texts already checked: carriers often repeat a payload
}

func (d *detector) add(f Finding) {
	for _, g := range d.out {
		if g.Key == f.Key {
			return
		}
	}
	d.out = append(d.out, f)
}

func (d *detector) check(cmd string, depth int) {
	if depth > maxDepth {
		d.add(dgUnparsable)
		return
	}
	if d.seen[cmd] {
		return
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[cmd] = true
	d.textPatterns(cmd)
	p := lex(cmd)
	for _, sub := range p.subs {
		d.check(sub, depth+1)
	}
	for _, pl := range p.pipelines {
		cmds := make([]command, len(pl))
		for i, seg := range pl {
			cmds[i] = normalize(seg)
			d.segment(cmds[i], seg)
			for _, payload := range cmds[i].payloads {
				d.check(payload, depth+1)
			}
		}
		d.pipeline(pl, cmds, depth)
	}
}

var (
	reDrop       = lazyre.New(`\bdrop\s+(table|database|schema)\b`)
	reDeleteFrom = lazyre.New(`\bdelete\s+from\b[^;\n]*`)
	reWhere      = lazyre.New(`\bwhere\b`)
	reTruncate   = lazyre.New(`\btruncate\s+(table\s+)?[a-z_"` + "`" + `\[]`)
	reMetadata   = lazyre.New(`169\.254\.169\.254|100\.100\.100\.200|metadata\.google\.internal|fd00:ec2::254`)
	reForkBomb   = lazyre.New(`([a-z_:.][\w:.]*)\s*\(\)\s*\{\s*([a-z_:.][\w:.]*)\s*\|\s*([a-z_:.][\w:.]*)\s*&\s*\}`)
	reProcSubst  = lazyre.New(`(^|[\s;&|(])(bash|sh|zsh|ksh|dash|source|\.)\s+(-\S+\s+)*<\s*<?\s*\(\s*(curl|wget)\b`)
	reCmdSubst   = lazyre.New(`(^|[\s;&|(])(eval|source|\.|bash|sh|zsh|ksh|dash)\s+(-\S+\s+)*["']?(\$\(|` + "`" + `)\s*(curl|wget)\b`)
	reBinDir     = lazyre.New(`(/usr)?(/local)?/s?bin/`)
	reSpaces     = lazyre.New(`\s+`)
	reQuoteChars = strings.NewReplacer(`"`, "", `'`, "", `\`, "", "${IFS}", " ", "$IFS", " ")
)

// textPatterns match the whole command flattened: SQL inside a client's
// -c string, metadata addresses in any argument, fork bombs and remote
// code run through substitutions.
func (d *detector) textPatterns(cmd string) {
	// Cheap substring tests gate each regexp: most commands contain none
	// of the trigger words, and the regexps have no literal prefix.
	flat := strings.ToLower(reQuoteChars.Replace(cmd))
	if strings.Contains(flat, "bin/") {
		flat = reBinDir().ReplaceAllString(flat, "")
	}
	// SQL is only run by a database client: the same words in grep's
	// pattern or an echo into a file are text.
	if sqlClient(flat) {
		if strings.Contains(flat, "drop") && reDrop().MatchString(flat) {
			d.add(dgSQLDrop)
		}
		if strings.Contains(flat, "delete") {
			for _, m := range reDeleteFrom().FindAllString(flat, -1) {
				if !reWhere().MatchString(m) {
					d.add(dgSQLDeleteAll)
				}
			}
		}
		if strings.Contains(flat, "truncate") && reTruncate().MatchString(flat) {
			d.add(dgSQLTruncate)
		}
	}
	if strings.ContainsAny(flat, "19:") && reMetadata().MatchString(flat) || strings.Contains(flat, "metadata.google") {
		d.add(dgCloudMetadata)
	}
	if strings.Contains(flat, "{") && strings.Contains(flat, "|") {
		for _, m := range reForkBomb().FindAllStringSubmatch(reSpaces().ReplaceAllString(flat, " "), -1) {
			if m[1] == m[2] && m[2] == m[3] {
				d.add(hlForkBomb)
			}
		}
	}
	if !strings.Contains(flat, "curl") && !strings.Contains(flat, "wget") {
		return
	}
	if reProcSubst().MatchString(flat) {
		d.add(dgRemoteProcSubst)
	}
	if reCmdSubst().MatchString(strings.ToLower(cmd)) || reCmdSubst().MatchString(flat) {
		d.add(dgRemoteCmdSubst)
	}
}

// sqlClients are the programs that run SQL they are given.
var sqlClients = []string{"psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "duckdb", "clickhouse", "cockroach",
	"mongo", "mongosh", "cqlsh", "snowsql", "bq", "usql", "pgcli", "mycli", "litecli"}

// sqlClient reports whether a command (lower-cased) runs a database
// client, or sends text to one through a redirect or a pipe.
func sqlClient(flat string) bool {
	for _, f := range strings.FieldsFunc(flat, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '<' || r == '>' || r == '\n'
	}) {
		if slices.Contains(sqlClients, strings.TrimPrefix(f, "/usr/bin/")) {
			return true
		}
	}
	return false
}

var reBlockDev = lazyre.New(`^/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|nbd\d|r?disk\d|mapper/|disk/by-)`)

func isBlockDevice(p string) bool { return reBlockDev().MatchString(p) }

// segment checks one simple command.
func (d *detector) segment(c command, seg segment) {
	for _, r := range seg.redirects {
		d.writeTarget(cleanTarget(strings.ToLower(r)))
	}
	if c.lookup || c.name == "" {
		return
	}
	if strings.HasPrefix(c.name, "mkfs") {
		d.add(hlFormat)
	}
	low := make([]string, len(c.args))
	for i, a := range c.args {
		low[i] = strings.ToLower(a)
	}
	switch c.name {
	case "rm":
		d.rm(c)
	case "chmod":
		d.chmod(c)
	case "chown":
		if c.hasFlag("R", "--recursive") {
			// The first operand is the new owner.
			if ops := c.operands(); len(ops) > 0 {
				o := strings.ToLower(ops[0])
				if o == "root" || strings.HasPrefix(o, "root:") || strings.HasPrefix(o, "0:") || o == "0" {
					d.add(dgChownRoot)
				}
			}
		}
	case "mke2fs", "newfs":
		d.add(hlFormat)
	case "mkswap":
		for _, o := range c.operands() {
			if isBlockDevice(o) {
				d.add(hlFormat)
			}
		}
	case "dd":
		for _, a := range low {
			if strings.HasPrefix(a, "of=") {
				d.writeTarget(cleanTarget(a[3:]))
			}
			if strings.HasPrefix(a, "if=") {
				d.add(dgDiskCopy)
			}
		}
	case "wipefs", "blkdiscard", "shred", "sgdisk", "sfdisk", "fdisk", "parted":
		for _, o := range c.operands() {
			if isBlockDevice(o) && (c.name != "sgdisk" || c.hasFlag("Zo", "--zap-all", "--clear")) &&
				(c.name != "fdisk" && c.name != "parted" && c.name != "sfdisk" || !c.hasFlag("l", "--list")) {
				d.add(hlWipeDevice)
			}
		}
	case "diskutil":
		if ops := c.operands(); len(ops) > 0 && reDiskutil().MatchString(strings.ToLower(ops[0])) {
			d.add(hlDiskutilErase)
		}
	case "shutdown", "reboot", "halt", "poweroff":
		d.add(hlPower)
	case "init", "telinit":
		if ops := c.operands(); len(ops) > 0 && (ops[0] == "0" || ops[0] == "6") {
			d.add(hlPower)
		}
	case "systemctl":
		ops := c.operands()
		if len(ops) > 0 {
			switch strings.ToLower(ops[0]) {
			case "poweroff", "reboot", "halt", "kexec":
				d.add(hlPower)
			case "stop", "restart", "disable", "mask", "kill":
				d.add(dgServiceStop)
			}
		}
	case "service":
		if ops := c.operands(); len(ops) > 1 && slices.Contains([]string{"stop", "restart"}, ops[1]) {
			d.add(dgServiceStop)
		}
	case "kill":
		d.kill(c)
	case "pkill":
		if slices.ContainsFunc(low, func(a string) bool { return a == "-9" || a == "-kill" || a == "-sigkill" }) ||
			argAfter(low, "--signal", "9", "kill", "sigkill") {
			d.add(dgForceKill)
		}
	case "killall":
		d.add(dgKillall)
	case "tee":
		for _, o := range c.operands() {
			d.writeTarget(cleanTarget(strings.ToLower(o)))
		}
	case "cp", "mv", "install", "ln", "rsync":
		if ops := c.operands(); len(ops) > 1 {
			d.writeTarget(cleanTarget(strings.ToLower(ops[len(ops)-1])))
		}
	case "find":
		if slices.Contains(c.args, "-delete") {
			d.add(dgFindDelete)
		}
		for i, a := range c.args {
			if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(c.args) && path.Base(c.args[i+1]) == "rm" {
				d.add(dgFindExecRm)
			}
		}
	case "xargs":
		for _, a := range c.args {
			if path.Base(a) == "rm" {
				d.add(dgXargsRm)
			}
		}
	case "git":
		d.git(c)
	}
}

func argAfter(args []string, flag string, values ...string) bool {
	for i, a := range args {
		if a == flag && i+1 < len(args) && slices.Contains(values, args[i+1]) {
			return true
		}
		for _, v := range values {
			if a == flag+"="+v {
				return true
			}
		}
	}
	return false
}

func (d *detector) rm(c command) {
	recursive := c.hasFlag("rR", "--recursive")
	for _, o := range c.operands() {
		t := cleanTarget(strings.ToLower(o))
		switch {
		case recursive && t == "/":
			d.add(hlDeleteRoot)
		case recursive && systemDirs[t]:
			d.add(hlDeleteSystem)
		case recursive && t == "~":
			d.add(hlDeleteHome)
		case !recursive && strings.HasPrefix(t, "/") && hasAnyPrefix(t+"/", systemFilePrefixes):
			d.add(dgDeleteSystem)
		}
	}
	if recursive {
		d.add(dgRecursiveDelete)
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var reDiskutil = lazyre.New(`^(erase|zerodisk|randomdisk|secureerase|reformat|partitiondisk)`)

var reOctalMode = lazyre.New(`^[0-7]{3,4}$`)
var reSymbolicMode = lazyre.New(`^[ugoa]*[+=][rwxxst]*$`)

func (d *detector) chmod(c command) {
	ops := c.operands()
	if len(ops) == 0 {
		return
	}
	mode := ops[0]
	if reOctalMode().MatchString(mode) {
		if last := mode[len(mode)-1]; last == '2' || last == '3' || last == '6' || last == '7' {
			d.add(dgWorldWritable)
		}
		return
	}
	for _, clause := range strings.Split(mode, ",") {
		if !reSymbolicMode().MatchString(clause) {
			continue
		}
		i := strings.IndexAny(clause, "+=")
		who, perm := clause[:i], clause[i+1:]
		if strings.ContainsAny(who, "oa") && strings.Contains(perm, "w") {
			d.add(dgWorldWritable)
		}
	}
}

func (d *detector) kill(c command) {
	// A last argument of -1 is the pid "every process" (kill -9 -1,
	// kill -- -1); `kill -1 PID` is signal 1 to PID and is fine.
	if n := len(c.args); n > 0 && c.args[n-1] == "-1" {
		d.add(hlKillAll)
	}
}

func (d *detector) git(c command) {
	i := 0
	for i < len(c.args) && c.args[i] != "push" {
		if c.args[i] == "-c" || c.args[i] == "-C" {
			i++
		}
		i++
	}
	if i >= len(c.args) {
		return
	}
	push := command{name: "push", args: c.args[i+1:]}
	if push.hasFlag("f", "--force", "--force-with-lease", "--mirror") {
		d.add(dgGitForcePush)
		return
	}
	for _, o := range push.operands() {
		if strings.HasPrefix(o, "+") {
			d.add(dgGitForcePush)
		}
	}
}

// writeTarget checks a file a command writes to.
func (d *detector) writeTarget(t string) {
	switch {
	case isBlockDevice(t):
		d.add(hlBlockWrite)
	case strings.HasPrefix(t, "/etc/") || t == "/etc" || strings.HasPrefix(t, "/private/etc/"):
		d.add(dgSystemConfig)
	case isSensitive(t):
		d.add(dgSensitiveFile)
	}
}

var sensitiveNames = map[string]bool{
	".bashrc": true, ".zshrc": true, ".profile": true, ".bash_profile": true,
	".zprofile": true, ".bash_login": true, ".zshenv": true, ".netrc": true,
	".pgpass": true, ".npmrc": true, ".pypirc": true,
}

func isSensitive(t string) bool {
	t = strings.ToLower(t)
	if sensitiveNames[path.Base(t)] {
		return true
	}
	for _, p := range []string{"~/.ssh", "/root/.ssh", "~/.hermes/.env", "~/.hermes/config.yaml", "$hermes_home/.env", "${hermes_home}/.env", "~/.aws/credentials", "~/.kube/config", "~/.gnupg"} {
		if t == p || strings.HasPrefix(t, p+"/") {
			return true
		}
	}
	return strings.Contains(t, "/.ssh/") && strings.HasPrefix(t, "/home/")
}

var decoders = map[string]bool{"base64": true, "base32": true, "base16": true, "basenc": true, "xxd": true, "openssl": true, "tr": true, "rev": true, "gunzip": true, "zcat": true, "gzip": true, "uudecode": true}

var fetchers = map[string]bool{"curl": true, "wget": true, "fetch": true, "nc": true, "ncat": true, "aria2c": true}

// pipeline checks what flows into a shell: remote content, decoded or
// obfuscated text, or an echoed command (checked as a command itself).
func (d *detector) pipeline(pl pipeline, cmds []command, depth int) {
	for i := 1; i < len(cmds); i++ {
		if !cmds[i].readsStdin() {
			continue
		}
		for _, up := range cmds[:i] {
			switch {
			case fetchers[up.name]:
				d.add(dgRemotePipe)
			case decoders[up.name] && isDecode(up):
				d.add(dgDecodedPipe)
			}
		}
		if first := cmds[0]; first.name == "echo" || first.name == "printf" {
			d.check(strings.Join(pl[0].words[1:], " "), depth+1)
		}
	}
	// Decode base64 payloads wherever they are decoded: the text is
	// checked as a command, so a hidden `rm -rf /` is found even when the
	// decoded output reaches the shell by another route.
	for i, c := range cmds {
		if c.name != "base64" || !isDecode(c) {
			continue
		}
		var blobs []string
		blobs = append(blobs, pl[i].herestr...)
		if i > 0 && (cmds[0].name == "echo" || cmds[0].name == "printf") {
			blobs = append(blobs, pl[0].words[1:]...)
		}
		for _, b := range blobs {
			if text, ok := decodeBase64(b); ok {
				d.check(text, depth+1)
			}
		}
	}
}

func isDecode(c command) bool {
	switch c.name {
	case "tr", "rev":
		return true
	case "gunzip", "zcat", "uudecode":
		return true
	case "gzip":
		return c.hasFlag("d", "--decompress")
	case "xxd":
		return c.hasFlag("r", "--revert")
	case "openssl":
		return slices.Contains(c.args, "-d") || slices.Contains(c.args, "base64") && slices.Contains(c.args, "-d")
	}
	return c.hasFlag("dD", "--decode")
}

func decodeBase64(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) > 0 {
			return string(b), true
		}
	}
	return "", false
}
