package approval

import (
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// codeFlags are, per interpreter, the options whose value is code.
var codeFlags = lazy.Of(codeFlagTable)

func codeFlagTable() map[string][]string {
	return map[string][]string{
		"python": {"-c"}, "python3": {"-c"}, "python2": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
		"perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"},
		"bun": {"-e", "--eval", "-p", "--print"}, "deno": {"eval"}, "php": {"-r"}, "lua": {"-e"},
	}
}

var awks = lazy.Of(awkSet)

func awkSet() map[string]bool {
	return map[string]bool{"awk": true, "gawk": true, "mawk": true, "nawk": true}
}

// interpreter checks code an interpreter is given inline: with -c/-e,
// as an awk program, or on standard input from a heredoc.
func (d *detector) interpreter(c command, seg segment, depth int) {
	if awks.Get()[c.name] {
		if prog, ok := awkProgram(c); ok {
			d.interpreterCode(c.name, prog, depth)
		}
		return
	}
	flags, ok := codeFlags.Get()[c.name]
	if !ok {
		return
	}
	found := false
	for i, a := range c.args {
		if v, ok := strings.CutPrefix(a, "--eval="); ok {
			d.interpreterCode(c.name, v, depth)
			found = true
			continue
		}
		// A short-flag cluster ending in the code flag (perl -ne, -pie).
		isCode := slices.Contains(flags, a) ||
			len(a) > 2 && a[0] == '-' && a[1] != '-' && slices.Contains(flags, "-"+a[len(a)-1:])
		if isCode && i+1 < len(c.args) {
			d.interpreterCode(c.name, c.args[i+1], depth)
			found = true
		}
	}
	if !found && seg.stdinKnown && c.readsStdin() {
		d.interpreterCode(c.name, seg.stdin, depth)
	}
}

// awkProgram is the program text of an awk command line.
func awkProgram(c command) (string, bool) {
	for i := 0; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "", false
		case a == "-v" || a == "-F":
			i++
		case a == "--":
			if i+1 < len(c.args) {
				return c.args[i+1], true
			}
			return "", false
		case strings.HasPrefix(a, "-"):
		default:
			return a, true
		}
	}
	return "", false
}

var (
	reCodeRuns   = lazyre.New(`(?i)\b(os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|subprocess|popen\d?|system|exec|execsync|execfile\w*|spawn\w*|child_process|passthru|shell_exec|proc_open|pcntl_exec|io\.popen|os\.execute|kernel\.exec|getoutput)\b`)
	reCodeShell  = lazyre.New("`[^`]+`|\\bqx\\s*[{(/|]|%x[{(]")
	reCodeDelete = lazyre.New(`(?i)(rmtree|os\.remove|os\.unlink|\.unlink\s*\(|os\.rmdir|removedirs|\bfs\.(rm|rmdir|unlink)(sync)?\b|\b(rm|rmdir|unlink)sync\b|rimraf|fileutils\.(rm|remove)\w*|file\.delete|dir\.delete|\bunlink\b|\brmdir\s*\(|\bremove_tree\b)`)
	reCodeWrite  = lazyre.New(`(?i)(\bopen\s*\([^)]*,\s*['"][wax+]|write_text|write_bytes|writefile|appendfile|file\.write|io\.write|file_put_contents|\bfopen\s*\([^)]*,\s*['"][wax]|\bopen\s*\(?\s*[\w$]*\s*,?\s*['"]\s*\+?>|shutil\.(copy|move)\w*|os\.(rename|replace|truncate)|fs\.(rename|copyfile|truncate)\w*|file\.open\s*\([^)]*['"][wa]|\.truncate\s*\()`)
	reCodeChmod  = lazyre.New(`(?i)\b(l?chmod|l?chown|chflags)\b`)
	reAwkRisky   = lazyre.New(`\bsystem\s*\(|\|\s*(getline|")|print[^;}]*>\s*"|printf[^;}]*>\s*"`)

	// A string run as a command: system("..."), exec "...", subprocess.run("...").
	reRunString = lazyre.New(`(?i)\b(?:system|exec|popen|execsync|shell_exec|passthru|proc_open|check_output|check_call|call|run|getoutput|getstatusoutput|execute|spawn)\s*\(?\s*(?:shell\s*=\s*\w+\s*,\s*)?[rbf]?(?:"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)')`)
	// A command as a list: subprocess.run(["rm", "-rf", "/"]).
	reRunList = lazyre.New(`(?i)\b(?:run|call|check_call|check_output|popen|spawn\w*|execv\w*|execl\w*|execfile\w*|system|exec)\s*\(\s*(?:(?:"([^"]*)"|'([^']*)')\s*,\s*)?\[([^\]]*)\]`)
	// A path handed to a recursive or single delete.
	reTreePath = lazyre.New(`(?i)\b(?:rmtree|rm_rf|rm_r|rmsync|rmdirsync|remove_tree|rimraf(?:\.sync)?|fs\.rm|rmdir|removedirs)\s*\(\s*[rb]?(?:"([^"]*)"|'([^']*)')`)
	reFilePath = lazyre.New(`(?i)(?:os\.remove|os\.unlink|\bunlink|unlinksync|file\.delete|fs\.unlink)\s*\(?\s*[rb]?(?:"([^"]*)"|'([^']*)')`)
	reStrLit   = lazyre.New(`"([^"]*)"|'([^']*)'`)
	rePathLike = lazyre.New(`^(~|/|\$home|\$hermes_home)`)
)

// interpreterCode checks a program: what it deletes, writes, runs.
func (d *detector) interpreterCode(lang, code string, depth int) {
	if depth >= maxDepth {
		d.add(hlTooDeep)
		return
	}
	risky := false
	if awks.Get()[lang] {
		risky = reAwkRisky.Get().MatchString(code)
	} else {
		runs := reCodeRuns.Get().MatchString(code) || lang != "node" && lang != "nodejs" && lang != "bun" && lang != "deno" && reCodeShell.Get().MatchString(code)
		writes := reCodeWrite.Get().MatchString(code)
		risky = runs || writes || reCodeDelete.Get().MatchString(code) || reCodeChmod.Get().MatchString(code)
		if writes {
			for _, m := range reStrLit.Get().FindAllStringSubmatch(code, -1) {
				if p := strings.ToLower(m[1] + m[2]); rePathLike.Get().MatchString(p) {
					d.writeTarget(cleanTarget(p))
				}
			}
		}
	}
	if !risky {
		return
	}
	d.add(dgInterpreterCode)
	for _, m := range reRunString.Get().FindAllStringSubmatch(code, -1) {
		d.guess(unescapeCode(m[1]+m[2]), depth+1)
	}
	for _, m := range reRunList.Get().FindAllStringSubmatch(code, -1) {
		var words []string
		if m[1]+m[2] != "" {
			words = append(words, m[1]+m[2])
		}
		for _, s := range reStrLit.Get().FindAllStringSubmatch(m[3], -1) {
			words = append(words, s[1]+s[2])
		}
		d.guess(shellJoin(words), depth+1)
	}
	for _, m := range reCodeShell.Get().FindAllString(code, -1) {
		if strings.HasPrefix(m, "`") {
			d.guess(strings.Trim(m, "`"), depth+1)
		}
	}
	for _, m := range reTreePath.Get().FindAllStringSubmatch(code, -1) {
		d.guess("rm -rf "+shellJoin([]string{m[1] + m[2]}), depth+1)
	}
	for _, m := range reFilePath.Get().FindAllStringSubmatch(code, -1) {
		d.guess("rm "+shellJoin([]string{m[1] + m[2]}), depth+1)
	}
}

var codeUnescaper = lazy.Of(codeUnescapeReplacer)

func codeUnescapeReplacer() *strings.Replacer {
	return strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`, `\n`, "\n")
}

func unescapeCode(s string) string { return codeUnescaper.Get().Replace(s) }
