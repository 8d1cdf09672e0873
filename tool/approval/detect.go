package approval

import (
	"encoding/base64"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
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
func Check(cmd string) []Finding { return CheckIn(cmd, nil) }

// CheckIn is Check for a command that runs where writableRoots (the
// workspace and the sandbox's other writable trees) may be written: a
// path inside one of them belongs to the user's work and is never a
// system directory, even when the root lies under /srv, /opt or /root. A
// root that is itself a system directory (/, /usr, /home, ...) is
// ignored.
func CheckIn(cmd string, writableRoots []string) []Finding {
	d := detector{roots: userRoots(writableRoots)}
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
	// unparsed are the texts among seen the shell parser rejected.
	unparsed map[string]bool
	// cwd is the directory the command has cd'd to, when known ("" if not).
	cwd string
	// roots are the writable roots, clean and absolute.
	roots []string
	// gitAliases are the aliases git config defined earlier in the
	// command line, gitRuns the commands of the settings it wrote that run
	// one (core.pager, ...): later git commands run them.
	gitAliases map[string]string
	gitRuns    []string
}

func (d *detector) add(f Finding) {
	for _, g := range d.out {
		if g.Key == f.Key {
			return
		}
	}
	d.out = append(d.out, f)
}

// check checks text a shell runs. Text the shell cannot parse is
// refused: what it runs cannot be known, and a shell still runs the
// lines before the error.
func (d *detector) check(cmd string, depth int) { d.inspect(payload{text: cmd}, depth, true) }

// run checks what a carrier hands a shell, with its positional
// parameters; loose text (keys typed into a terminal) is checked as a
// guess.
func (d *detector) run(p payload, depth int) { d.inspect(p, depth, !p.loose) }

// guess checks text that may be a command (decoded data, a string in
// interpreter code): text that does not parse is only looked at.
func (d *detector) guess(cmd string, depth int) { d.inspect(payload{text: cmd}, depth, false) }

func (d *detector) inspect(p payload, depth int, strict bool) {
	if depth > maxDepth {
		d.add(hlTooDeep)
		return
	}
	key := p.text
	if p.params != nil {
		key += "\x00" + strings.Join(p.params, "\x00")
	}
	if d.seen[key] {
		if strict && d.unparsed[key] {
			d.add(hlUnparsed)
		}
		return
	}
	if d.seen == nil {
		d.seen, d.unparsed = map[string]bool{}, map[string]bool{}
	}
	d.seen[key] = true
	text := normalizeText(p.text)
	f, err := parseShell(text)
	if err != nil {
		d.unparsed[key] = true
		if strict {
			d.add(hlUnparsed)
		}
		d.checkUnparsed(text, depth, strict)
		return
	}
	d.textPatterns(text, false)
	cwd := d.cwd
	w := newWalker(d, text, depth)
	w.params = p.params
	w.run(f)
	d.cwd = cwd
}

// reLooksDangerous finds, in text the parser rejects, words worth a
// question.
var reLooksDangerous = lazyre.New(`(?i)(^|[^\w.-])(rm|dd|mkfs\S*|chmod|chown|chattr|truncate|shred|kill|pkill|killall|shutdown|reboot|halt|poweroff|sudo|su|doas|eval|exec|source|sh|bash|zsh|dash|curl|wget|git|docker|systemctl|python\d*|perl|ruby|node|php|awk|find|xargs|mv|cp|tee|sed|ln|drop|delete|base64|nc)([^\w.-]|$)|>|\$\(|` + "`")

// checkUnparsed checks a command the shell parser rejects with the
// hand-written lexer, so that the findings name what it would run; a
// guess that looks dangerous asks (a command a shell runs is refused
// already).
func (d *detector) checkUnparsed(cmd string, depth int, refused bool) {
	n := len(d.out)
	d.textPatterns(cmd, true)
	if !refused && len(d.out) == n && reLooksDangerous.Get().MatchString(cmd) {
		defer d.add(dgUnparsedDanger)
	}
	p := lex(cmd)
	for _, sub := range p.subs {
		d.guess(sub, depth+1)
	}
	for _, pl := range p.pipelines {
		cmds := make([]command, len(pl))
		for i, seg := range pl {
			cmds[i] = normalize(seg)
			d.segment(cmds[i], seg, depth)
			for _, p := range cmds[i].payloads {
				d.inspect(p, depth+1, false)
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
	reQuoteChars = lazy.Of(quoteCharsReplacer)
)

func quoteCharsReplacer() *strings.Replacer {
	return strings.NewReplacer(`"`, "", `'`, "", `\`, "", "${IFS}", " ", "$IFS", " ")
}

// textPatterns match the whole command flattened: metadata addresses in
// any argument, fork bombs and remote code run through substitutions,
// and, for text the parser rejects, SQL given to a database client.
func (d *detector) textPatterns(cmd string, withSQL bool) {
	// Cheap substring tests gate each regexp: most commands contain none
	// of the trigger words, and the regexps have no literal prefix.
	flat := strings.ToLower(reQuoteChars.Get().Replace(cmd))
	if strings.Contains(flat, "bin/") {
		flat = reBinDir.Get().ReplaceAllString(flat, "")
	}
	// SQL is only run by a database client: the same words in grep's
	// pattern or an echo into a file are text.
	if withSQL && sqlClient(flat) {
		d.sql(flat)
	}
	if strings.ContainsAny(flat, "19:") && reMetadata.Get().MatchString(flat) || strings.Contains(flat, "metadata.google") {
		d.add(dgCloudMetadata)
	}
	if strings.Contains(flat, "{") && strings.Contains(flat, "|") {
		for _, m := range reForkBomb.Get().FindAllStringSubmatch(reSpaces.Get().ReplaceAllString(flat, " "), -1) {
			if m[1] == m[2] && m[2] == m[3] {
				d.add(hlForkBomb)
			}
		}
	}
	if !strings.Contains(flat, "curl") && !strings.Contains(flat, "wget") {
		return
	}
	if reProcSubst.Get().MatchString(flat) {
		d.add(dgRemoteProcSubst)
	}
	if reCmdSubst.Get().MatchString(strings.ToLower(cmd)) || reCmdSubst.Get().MatchString(flat) {
		d.add(dgRemoteCmdSubst)
	}
}

// sql checks text a database client runs.
func (d *detector) sql(text string) {
	flat := strings.ToLower(text)
	if strings.Contains(flat, "drop") && reDrop.Get().MatchString(flat) {
		d.add(dgSQLDrop)
	}
	if strings.Contains(flat, "delete") {
		for _, m := range reDeleteFrom.Get().FindAllString(flat, -1) {
			if !reWhere.Get().MatchString(m) {
				d.add(dgSQLDeleteAll)
			}
		}
	}
	if strings.Contains(flat, "truncate") && reTruncate.Get().MatchString(flat) {
		d.add(dgSQLTruncate)
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

func isBlockDevice(p string) bool { return reBlockDev.Get().MatchString(p) }

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

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

var reDiskutil = lazyre.New(`^(erase|zerodisk|randomdisk|secureerase|reformat|partitiondisk)`)

var decoders = lazy.Of(decoderSet)

func decoderSet() map[string]bool {
	return map[string]bool{"base64": true, "base32": true, "base16": true, "basenc": true, "xxd": true, "openssl": true, "tr": true, "rev": true, "gunzip": true, "zcat": true, "gzip": true, "uudecode": true}
}

var fetchers = lazy.Of(fetcherSet)

func fetcherSet() map[string]bool {
	return map[string]bool{"curl": true, "wget": true, "fetch": true, "nc": true, "ncat": true, "aria2c": true}
}

// pipeline checks what flows into a shell: remote content, decoded or
// obfuscated text, or an echoed command (checked as a command itself).
func (d *detector) pipeline(pl pipeline, cmds []command, depth int) {
	for i := 1; i < len(cmds); i++ {
		if !cmds[i].readsStdin() {
			continue
		}
		for _, up := range cmds[:i] {
			switch {
			case fetchers.Get()[up.name]:
				d.add(dgRemotePipe)
			case decoders.Get()[up.name] && isDecode(up):
				d.add(dgDecodedPipe)
			}
		}
		if first := cmds[0]; first.name == "echo" || first.name == "printf" {
			d.guess(strings.Join(pl[0].words[1:], " "), depth+1)
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
				d.guess(text, depth+1)
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
