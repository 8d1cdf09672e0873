package approval

import (
	"maps"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// gitArgFlags are git's global options that take a value.
var gitArgFlags = lazy.Of(gitArgFlagSet)

func gitArgFlagSet() map[string]bool {
	return map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": true, "--config-env": true}
}

// gitCommandSettings run a command when git reads them.
var gitCommandSettings = []string{"core.sshcommand", "core.pager", "core.editor", "core.fsmonitor", "core.hookspath", "sequence.editor", "diff.external", "credential.helper"}

func (d *detector) git(c command, depth int) {
	args := c.args
	aliases := maps.Clone(d.gitAliases)
	if aliases == nil {
		aliases = map[string]string{}
	}
	for _, v := range d.gitRuns {
		d.check(strings.TrimPrefix(strings.TrimSpace(v), "!"), depth+1)
	}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if args[0] == "-c" && len(args) > 1 {
			d.gitSetting(args[1], aliases, depth)
		}
		if gitArgFlags.Get()[args[0]] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	// An alias runs only when it is invoked: a shell alias (!cmd) runs
	// cmd with the arguments, another stands for git arguments and may
	// name an alias in turn.
	for range 8 {
		if len(args) == 0 {
			return
		}
		v, ok := aliases[strings.ToLower(args[0])]
		if !ok {
			break
		}
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(v), "!"); ok {
			d.check(cmd+" "+shellJoin(args[1:]), depth+1)
			return
		}
		args = append(strings.Fields(v), args[1:]...)
	}
	if len(args) == 0 {
		return
	}
	sub := command{name: args[0], args: args[1:]}
	ops := sub.operands()
	switch sub.name {
	case "push":
		switch {
		case sub.hasFlag("f", "--force", "--force-with-lease"):
			d.add(dgGitForcePush)
		case sub.hasFlag("d", "--delete", "--mirror", "--prune"):
			d.add(dgGitPushDelete)
		}
		for _, o := range ops {
			if strings.HasPrefix(o, "+") {
				d.add(dgGitForcePush)
			}
			if strings.HasPrefix(o, ":") && len(o) > 1 {
				d.add(dgGitPushDelete)
			}
		}
	case "reset":
		if sub.hasFlag("", "--hard", "--merge", "--keep") {
			d.add(dgGitResetHard)
		}
	case "clean":
		if sub.hasFlag("f", "--force") && !sub.hasFlag("n", "--dry-run") {
			d.add(dgGitClean)
		}
	case "checkout":
		dashdash := false
		for _, a := range sub.args {
			dashdash = dashdash || a == "--"
		}
		if dashdash && len(ops) > 0 || len(ops) > 0 && ops[len(ops)-1] == "." || sub.hasFlag("f", "--force") {
			d.add(dgGitDiscard)
		}
	case "restore":
		if len(ops) > 0 && (!sub.hasFlag("S", "--staged") || sub.hasFlag("W", "--worktree")) {
			d.add(dgGitDiscard)
		}
	case "branch":
		if sub.hasFlag("D") || sub.hasFlag("d", "--delete") && sub.hasFlag("f", "--force") {
			d.add(dgGitBranchDelete)
		}
	case "stash":
		if len(ops) > 0 && (ops[0] == "drop" || ops[0] == "clear") {
			d.add(dgGitStashDrop)
		}
	case "config":
		d.gitConfig(sub.args)
	}
}

// gitSetting checks one -c key=value: an alias (checked when invoked),
// or a setting that runs a command.
func (d *detector) gitSetting(kv string, aliases map[string]string, depth int) {
	k, v, _ := strings.Cut(kv, "=")
	k = strings.ToLower(k)
	if name, ok := strings.CutPrefix(k, "alias."); ok {
		d.add(dgGitInlineAlias)
		aliases[name] = v
		return
	}
	if slices.Contains(gitCommandSettings, k) {
		d.add(dgGitInlineAlias)
		d.check(strings.TrimPrefix(strings.TrimSpace(v), "!"), depth+1)
	}
}

// gitConfigValueFlags are git config options that take a value.
var gitConfigValueFlags = []string{"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}

// gitConfigReads are git config's forms that write nothing.
var gitConfigReads = []string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool",
	"--list", "-l", "--unset", "--unset-all", "--remove-section", "--rename-section", "-e", "--edit",
	"get", "list", "unset", "edit", "rename-section", "remove-section"}

// gitConfig asks when git config writes a shell alias or a setting that
// runs a command: it runs later, from a git command that looks
// harmless. Defining one runs nothing yet; the rest of the command line
// knows it, so invoking it there is checked as what it runs.
func (d *detector) gitConfig(args []string) {
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case slices.Contains(gitConfigReads, a) && (strings.HasPrefix(a, "-") || len(ops) == 0):
			return
		case slices.Contains(gitConfigValueFlags, a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 && ops[0] == "set" {
		ops = ops[1:]
	}
	if len(ops) < 2 {
		return
	}
	key, value := strings.ToLower(ops[0]), ops[1]
	if name, ok := strings.CutPrefix(key, "alias."); ok {
		if strings.HasPrefix(strings.TrimSpace(value), "!") {
			d.add(dgGitConfigRun)
		}
		if d.gitAliases == nil {
			d.gitAliases = map[string]string{}
		}
		d.gitAliases[name] = value
		return
	}
	if slices.Contains(gitCommandSettings, key) {
		d.add(dgGitConfigRun)
		d.gitRuns = append(d.gitRuns, value)
	}
}
