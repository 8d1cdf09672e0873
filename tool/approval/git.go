package approval

import (
	"strings"
)

// gitArgFlags are git's global options that take a value.
var gitArgFlags = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": true, "--config-env": true}

// gitCommandSettings run a command when git reads them.
var gitCommandSettings = []string{"core.sshcommand", "core.pager", "core.editor", "core.fsmonitor", "core.hookspath", "sequence.editor", "diff.external", "credential.helper"}

func (d *detector) git(c command, depth int) {
	args := c.args
	aliases := map[string]string{}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if args[0] == "-c" && len(args) > 1 {
			d.gitSetting(args[1], aliases, depth)
		}
		if gitArgFlags[args[0]] && len(args) > 1 {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	if v, ok := aliases[strings.ToLower(args[0])]; ok && !strings.HasPrefix(v, "!") {
		args = append(strings.Fields(v), args[1:]...)
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
	}
}

// gitSetting checks one -c key=value: an alias, or a setting that runs
// a command. A shell alias (!cmd) is checked as the command it runs.
func (d *detector) gitSetting(kv string, aliases map[string]string, depth int) {
	k, v, _ := strings.Cut(kv, "=")
	k = strings.ToLower(k)
	if name, ok := strings.CutPrefix(k, "alias."); ok {
		d.add(dgGitInlineAlias)
		aliases[name] = v
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(v), "!"); ok {
			d.check(cmd, depth+1)
		}
		return
	}
	for _, s := range gitCommandSettings {
		if k == s {
			d.add(dgGitInlineAlias)
			d.check(v, depth+1)
		}
	}
}
