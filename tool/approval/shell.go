package approval

import (
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Parsers are reused: building one allocates its buffers.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parseShell(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// walker visits every simple command of one parsed command line, in the
// order the shell would meet them, keeping what is statically known:
// variables assigned earlier, aliases, the working directory, and the
// scripts the line writes.
type walker struct {
	d         *detector
	depth     int
	src       string
	vars      map[string]string
	aliases   map[string]string
	scripts   map[string]script
	cache     map[*syntax.Stmt]*resolved
	inPipe    map[*syntax.BinaryCmd]bool
	evalDepth int
	// params are the positional parameters ($0, $1, ...) a carrier gave
	// the shell running this text; nil when none are known.
	params []string
}

// script is a file the command line writes, and its text when known.
type script struct {
	text  string
	known bool
}

// resolved is one statement with its words expanded.
type resolved struct {
	seg segment
	cmd command
	ok  bool // a command with a program name
}

func newWalker(d *detector, src string, depth int) *walker {
	return &walker{d: d, depth: depth, src: src, vars: map[string]string{}, aliases: map[string]string{},
		scripts: map[string]script{}, cache: map[*syntax.Stmt]*resolved{}, inPipe: map[*syntax.BinaryCmd]bool{}}
}

func (w *walker) run(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			w.stmt(x)
		case *syntax.BinaryCmd:
			if (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && !w.inPipe[x] {
				w.pipeline(w.flatten(x, nil))
			}
		case *syntax.DeclClause:
			w.assign(x.Args)
		}
		return true
	})
}

// Get implements expand.Environ. Unknown variables expand to their own
// name ($X), so an unknown value never reads as an empty one: rm -rf
// $DIR/ is not rm -rf /.
func (w *walker) Get(name string) expand.Variable {
	if w.params != nil {
		switch {
		case name == "@", name == "*":
			return expand.Variable{Set: true, Kind: expand.Indexed, List: w.params[1:]}
		case name == "#":
			return strVar(strconv.Itoa(len(w.params) - 1))
		case isDigits(name):
			if n, err := strconv.Atoi(name); err == nil && n < len(w.params) {
				return strVar(w.params[n])
			}
			return expand.Variable{}
		}
	}
	if v, ok := w.vars[name]; ok {
		return strVar(v)
	}
	switch {
	case name == "HOME":
		return strVar("~")
	case strings.HasPrefix(name, "HOME "): // ~user
		return strVar("~" + name[5:])
	case name == "HERMES_HOME":
		return strVar("~/.hermes")
	case name == "IFS":
		return strVar(" \t\n")
	case name == "@", name == "*", name == "#", name == "PWD":
		return expand.Variable{}
	}
	return strVar("$" + name)
}

// Each implements expand.Environ.
func (w *walker) Each(f func(name string, vr expand.Variable) bool) {
	for k, v := range w.vars {
		if !f(k, strVar(v)) {
			return
		}
	}
}

func strVar(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }

// config is made per expansion: expand reuses a Config's buffers, and
// command substitutions expand words while an outer word is expanding.
func (w *walker) config() *expand.Config {
	return &expand.Config{Env: w, CmdSubst: w.cmdSubst, ProcSubst: func(*syntax.ProcSubst) (string, error) { return "/dev/fd/63", nil }}
}

// cmdSubst writes what a substitution prints when that is statically
// known (echo, printf, base64 -d, ...), or else its source text.
func (w *walker) cmdSubst(out io.Writer, cs *syntax.CmdSubst) error {
	if len(cs.Stmts) == 1 && w.evalDepth < 4 {
		w.evalDepth++
		s, ok := w.eval(cs.Stmts[0], "", false)
		w.evalDepth--
		if ok {
			_, err := io.WriteString(out, s)
			return err
		}
	}
	_, err := io.WriteString(out, w.raw(cs))
	return err
}

func (w *walker) raw(n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(w.src) || a > b {
		return ""
	}
	return w.src[a:b]
}

func (w *walker) literal(word *syntax.Word) string {
	if word == nil {
		return ""
	}
	s, err := expand.Literal(w.config(), word)
	if err != nil {
		return stripQuotes(w.raw(word))
	}
	return s
}

func (w *walker) document(word *syntax.Word) string {
	if word == nil {
		return ""
	}
	s, err := expand.Document(w.config(), word)
	if err != nil {
		return w.raw(word)
	}
	return s
}

var quoteStripper = lazy.Of(quoteStripReplacer)

func quoteStripReplacer() *strings.Replacer { return strings.NewReplacer(`"`, "", `'`, "", `\`, "") }

func stripQuotes(s string) string { return quoteStripper.Get().Replace(s) }

// fields expands a command's words as the shell would, remembering for
// each field whether it was computed and the source word it came from.
func (w *walker) fields(words []*syntax.Word) (out []string, dyn []bool, raw []string) {
	for _, word := range words {
		// Most words are plain text: no expansion to run.
		if lit, ok := plainWord(word); ok {
			out, dyn, raw = append(out, lit), append(dyn, false), append(raw, w.raw(word))
			continue
		}
		computed := computedWord(word)
		r := w.raw(word)
		fs, err := expand.Fields(w.config(), word)
		if err != nil {
			fs = []string{stripQuotes(r)}
		}
		for _, f := range fs {
			out, dyn, raw = append(out, f), append(dyn, computed), append(raw, r)
		}
	}
	return out, dyn, raw
}

// plainWord returns the text of a word made only of unquoted letters
// that expand to themselves (no globs, braces, tildes or escapes) and
// plain quoted strings.
func plainWord(word *syntax.Word) (string, bool) {
	if len(word.Parts) == 1 {
		if l, ok := word.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return l.Value, true
		}
	}
	var b strings.Builder
	for _, p := range word.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !plainLit(p.Value) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(l.Value, '\\') {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// plainLit reports whether unquoted text expands to itself.
func plainLit(s string) bool {
	return !strings.ContainsAny(s, "*?[]{}~\\") && s != ""
}

// computedWord reports whether a word's text is only known when it
// runs: parameter, command or arithmetic expansion, brace expansion, or
// an ANSI-C string with escapes.
func computedWord(word *syntax.Word) bool {
	cp := *word
	if syntax.SplitBraces(&cp) {
		return true
	}
	return computedParts(word.Parts)
}

func computedParts(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			return true
		case *syntax.DblQuoted:
			if computedParts(p.Parts) {
				return true
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				return true
			}
		}
	}
	return false
}

// resolve expands a statement's words and redirections; results are
// cached, as pipelines and substitutions look at a statement again.
func (w *walker) resolve(s *syntax.Stmt) *resolved {
	if r, ok := w.cache[s]; ok {
		return r
	}
	r := &resolved{}
	w.cache[s] = r
	seg := &r.seg
	for _, rd := range s.Redirs {
		switch rd.Op {
		case syntax.RdrOut, syntax.ClbOut, syntax.RdrAll, syntax.RdrAllClob:
			t := w.literal(rd.Word)
			seg.redirects = append(seg.redirects, t)
			seg.truncates = append(seg.truncates, t)
		case syntax.AppOut, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			seg.redirects = append(seg.redirects, w.literal(rd.Word))
		case syntax.DplOut:
			if t := w.literal(rd.Word); t != "" && t != "-" && !isDigits(t) {
				seg.redirects = append(seg.redirects, t)
			}
		case syntax.RdrIn:
			seg.inputs = append(seg.inputs, w.literal(rd.Word))
		case syntax.Hdoc, syntax.DashHdoc:
			seg.stdin, seg.stdinKnown = w.document(rd.Hdoc), true
		case syntax.WordHdoc:
			t := w.literal(rd.Word)
			seg.herestr = append(seg.herestr, t)
			seg.stdin, seg.stdinKnown = t+"\n", true
		}
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return r
	}
	seg.words, seg.dyn, seg.raw = w.fields(call.Args)
	if len(seg.words) == 0 {
		return r
	}
	r.cmd = normalize(*seg)
	r.ok = r.cmd.name != "" || r.cmd.lookup || len(r.cmd.payloads) > 0
	return r
}

// eval returns what a statement prints, when that is statically known.
func (w *walker) eval(s *syntax.Stmt, stdin string, have bool) (string, bool) {
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op != syntax.Pipe && x.Op != syntax.PipeAll {
			return "", false
		}
		out, ok := w.eval(x.X, stdin, have)
		if !ok {
			return "", false
		}
		return w.eval(x.Y, out, true)
	case *syntax.CallExpr:
		r := w.resolve(s)
		if !r.ok {
			return "", false
		}
		if r.seg.stdinKnown {
			stdin, have = r.seg.stdin, true
		}
		return staticOutput(r.cmd, stdin, have)
	}
	return "", false
}

func (w *walker) evalPipe(stmts []*syntax.Stmt) (string, bool) {
	out, have := "", false
	for _, s := range stmts {
		if out, have = w.eval(s, out, have); !have {
			return "", false
		}
	}
	return out, have
}

// staticOutput is what the few commands whose output follows from their
// arguments print: echo, printf, cat of its input, base64 -d.
func staticOutput(c command, stdin string, have bool) (string, bool) {
	switch c.name {
	case "echo":
		args, nl, esc := c.args, true, false
		for len(args) > 0 && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && args[0][0] == '-' {
			nl = nl && !strings.Contains(args[0], "n")
			esc = strings.Contains(args[0], "e")
			args = args[1:]
		}
		s := strings.Join(args, " ")
		if esc {
			s, _, _ = expand.Format(nil, strings.ReplaceAll(s, "%", "%%"), nil)
		}
		if nl {
			s += "\n"
		}
		return s, true
	case "printf":
		args := c.args
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 || args[0] == "-v" {
			return "", false
		}
		var b strings.Builder
		format, rest := args[0], args[1:]
		for range 64 {
			s, n, err := expand.Format(nil, format, rest)
			if err != nil {
				return "", false
			}
			b.WriteString(s)
			if n == 0 || n >= len(rest) {
				break
			}
			rest = rest[n:]
		}
		return b.String(), true
	case "cat":
		if ops := c.operands(); len(ops) == 0 || len(ops) == 1 && ops[0] == "-" {
			return stdin, have
		}
	case "base64":
		if have && isDecode(c) && len(c.operands()) == 0 {
			return decodeBase64(stdin)
		}
	case "true", ":":
		return "", true
	}
	return "", false
}

func (w *walker) flatten(x *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	w.inPipe[x] = true
	for _, s := range []*syntax.Stmt{x.X, x.Y} {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			out = w.flatten(b, out)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (w *walker) assign(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		if a.Array != nil || a.Index != nil {
			delete(w.vars, a.Name.Value)
			continue
		}
		v := w.literal(a.Value)
		if a.Append {
			v = w.Get(a.Name.Value).Str + v
		}
		w.vars[a.Name.Value] = v
	}
}

// stmt checks one statement: its redirections, and the command it runs.
func (w *walker) stmt(s *syntax.Stmt) {
	r := w.resolve(s)
	d := w.d
	for _, t := range r.seg.redirects {
		d.writeTarget(cleanTarget(strings.ToLower(t)))
	}
	if len(r.seg.truncates) > 0 && w.wipes(s, r) {
		d.add(dgWipeFile)
	}
	if len(r.seg.redirects) > 0 {
		text, known := w.eval(s, "", false)
		for _, t := range r.seg.redirects {
			w.scripts[scriptKey(t)] = script{text, known}
		}
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return
	}
	if len(call.Args) == 0 {
		w.assign(call.Assigns)
		return
	}
	if r.ok {
		w.command(r)
	}
}

// wipes reports whether a statement only empties the files it
// redirects to: > f, : > f, true > f, cat /dev/null > f.
func (w *walker) wipes(s *syntax.Stmt, r *resolved) bool {
	if slices.ContainsFunc(r.seg.truncates, func(t string) bool { return strings.HasPrefix(t, "/dev/") }) {
		return false
	}
	if s.Cmd == nil {
		return true
	}
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok || !r.ok {
		return false
	}
	c := r.cmd
	switch c.name {
	case ":", "true", "false":
		return true
	case "cat":
		ops := c.operands()
		return len(ops) == 1 && ops[0] == "/dev/null" || len(ops) == 0 && slices.Contains(r.seg.inputs, "/dev/null")
	case "echo":
		return len(c.args) == 1 && c.args[0] == "-n"
	}
	return false
}

func scriptKey(p string) string { return strings.TrimPrefix(path.Clean(p), "./") }

// command checks one simple command.
func (w *walker) command(r *resolved) {
	c, seg, d := r.cmd, r.seg, w.d
	if c.at < len(seg.dyn) && seg.dyn[c.at] {
		d.add(dgComputedName)
	}
	if c.lookup {
		return
	}
	if v, ok := w.aliases[c.name]; ok {
		d.add(dgComputedName)
		d.check(v+" "+shellJoin(c.args), w.depth+1)
	}
	switch c.name {
	case "alias":
		for _, a := range c.args {
			if name, val, ok := strings.Cut(a, "="); ok {
				w.aliases[strings.ToLower(name)] = val
			}
		}
	case "cd", "pushd":
		d.cd(c)
	}
	d.segment(c, seg, w.depth)
	for _, p := range c.payloads {
		d.run(p, w.depth+1)
	}
	d.interpreter(c, seg, w.depth)
	if seg.stdinKnown {
		if ps, ok := c.stdinPayloads(seg.stdin); ok {
			d.add(dgShellStdin)
			for _, p := range ps {
				d.run(p, w.depth+1)
			}
		}
	}
	if c.name == "base64" && isDecode(c) && seg.stdinKnown {
		if text, ok := decodeBase64(seg.stdin); ok {
			d.guess(text, w.depth+1)
		}
	}
	if slices.Contains(sqlClients, c.name) {
		d.sql(strings.Join(c.args, " ") + "\n" + seg.stdin)
	}
	w.runsScript(c)
}

// runsScript checks a script the same command line wrote and now runs
// (sh x.sh, source x.sh, ./x.sh).
func (w *walker) runsScript(c command) {
	var file string
	byShell := shells.Get()[c.name] || c.name == "source" || c.name == "."
	switch {
	case byShell:
		if ops := c.operands(); len(ops) > 0 && len(c.payloads) == 0 {
			file = ops[0]
		}
	default:
		file = c.name // the base name: ./x.sh runs x.sh
	}
	if file == "" {
		return
	}
	sc, ok := w.scripts[scriptKey(file)]
	if !ok {
		// The script may have been written under its full name.
		for k, v := range w.scripts {
			if path.Base(k) == path.Base(file) {
				sc, ok = v, true
			}
		}
	}
	if !ok {
		return
	}
	w.d.add(dgScriptWriteRun)
	if !sc.known {
		return
	}
	// ./x runs its #! interpreter; without one, or run by a shell, the
	// text is shell code.
	lang := shebang(sc.text)
	switch {
	case byShell || lang == "" || shells.Get()[lang]:
		w.d.check(sc.text, w.depth+1)
	case codeFlags.Get()[lang] != nil:
		w.d.interpreterCode(lang, sc.text, w.depth)
	default:
		w.d.guess(sc.text, w.depth+1)
	}
}

// shebang returns the program a script's #! line names (through env),
// lower-cased, or "".
func shebang(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	f := strings.Fields(rest)
	if len(f) > 0 && path.Base(f[0]) == "env" {
		f = f[1:]
		for len(f) > 0 && strings.HasPrefix(f[0], "-") {
			f = f[1:]
		}
	}
	if len(f) == 0 {
		return ""
	}
	return path.Base(strings.ToLower(f[0]))
}

// pipeline checks what flows into a shell, an interpreter or a database
// client: remote content, decoded text, or a command echoed into it.
func (w *walker) pipeline(stmts []*syntax.Stmt) {
	d := w.d
	for i := 1; i < len(stmts); i++ {
		r := w.resolve(stmts[i])
		if !r.ok {
			continue
		}
		c := r.cmd
		reads := c.readsStdin()
		sql := slices.Contains(sqlClients, c.name)
		if !reads && !sql {
			continue
		}
		if reads {
			for _, up := range stmts[:i] {
				u := w.resolve(up)
				switch {
				case !u.ok:
				case fetchers.Get()[u.cmd.name]:
					d.add(dgRemotePipe)
				case decoders.Get()[u.cmd.name] && isDecode(u.cmd):
					d.add(dgDecodedPipe)
				}
			}
		}
		if r.seg.stdinKnown {
			continue
		}
		out, known := w.evalPipe(stmts[:i])
		if !known {
			continue
		}
		if sql {
			d.sql(out)
			continue
		}
		if ps, ok := c.stdinPayloads(out); ok {
			for _, p := range ps {
				d.run(p, w.depth+1)
			}
			continue
		}
		d.interpreterCode(c.name, out, w.depth)
	}
	for i, s := range stmts {
		r := w.resolve(s)
		if !r.ok || r.cmd.name != "base64" || !isDecode(r.cmd) || i == 0 || r.seg.stdinKnown {
			continue
		}
		if in, ok := w.evalPipe(stmts[:i]); ok {
			if text, ok := decodeBase64(in); ok {
				d.guess(text, w.depth+1)
			}
		}
	}
}

// shellJoin quotes words so the shell reads them back as the same words.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, s := range words {
		q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
