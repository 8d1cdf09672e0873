package approval

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Finding is one reason a command needs approval or is refused.
type Finding struct {
	// Key names the pattern; it is what "session" and "always" approvals
	// and command_allowlist entries remember.
	Key string
	// Description says what the pattern catches, for the prompt and the
	// model.
	Description string
	// Hardline findings are refused whatever the mode, yolo or allowlist.
	Hardline bool
}

// Hardline patterns: never run.
var (
	hlDeleteRoot    = Finding{"delete_root", "recursive delete of the root filesystem", true}
	hlDeleteSystem  = Finding{"delete_system_dir", "recursive delete of a system directory", true}
	hlDeleteHome    = Finding{"delete_home", "recursive delete of the home directory", true}
	hlFormat        = Finding{"format_filesystem", "format a filesystem", true}
	hlBlockWrite    = Finding{"write_block_device", "write to a raw block device", true}
	hlWipeDevice    = Finding{"wipe_block_device", "wipe a raw block device", true}
	hlForkBomb      = Finding{"fork_bomb", "fork bomb", true}
	hlKillAll       = Finding{"kill_all_processes", "kill every process (kill -1)", true}
	hlPower         = Finding{"shutdown", "shut down or reboot the machine", true}
	hlDiskutilErase = Finding{"diskutil_erase", "erase a disk (diskutil)", true}
	hlTooDeep       = Finding{"unparsable", "command too deeply nested to check", true}
	hlUnparsed      = Finding{"unparsed_command", "command the shell cannot parse (unbalanced quotes or an unfinished construct), so what it runs cannot be known", true}
)

// Dangerous patterns: run only with approval.
var (
	dgRecursiveDelete = Finding{"recursive_delete", "recursive delete", false}
	dgDeleteSystem    = Finding{"delete_system_file", "delete a file in a system directory", false}
	dgWorldWritable   = Finding{"world_writable", "world/other-writable permissions (chmod)", false}
	dgChownRoot       = Finding{"chown_root", "recursive chown to root", false}
	dgDiskCopy        = Finding{"disk_copy", "disk copy (dd)", false}
	dgSQLDrop         = Finding{"sql_drop", "SQL DROP TABLE/DATABASE", false}
	dgSQLDeleteAll    = Finding{"sql_delete_without_where", "SQL DELETE without WHERE", false}
	dgSQLTruncate     = Finding{"sql_truncate", "SQL TRUNCATE", false}
	dgSystemConfig    = Finding{"overwrite_system_config", "overwrite system configuration (/etc)", false}
	dgSensitiveFile   = Finding{"overwrite_sensitive_file", "overwrite a sensitive file (SSH keys, shell rc, credentials, Hermes env/config)", false}
	dgServiceStop     = Finding{"service_stop", "stop/restart/disable a system service", false}
	dgForceKill       = Finding{"force_kill", "force-kill processes by name (pkill -9)", false}
	dgKillall         = Finding{"killall", "kill processes by name (killall)", false}
	dgRemotePipe      = Finding{"pipe_remote_to_shell", "pipe remote content to a shell (curl | sh)", false}
	dgRemoteProcSubst = Finding{"remote_process_substitution", "execute a remote script via process substitution", false}
	dgRemoteCmdSubst  = Finding{"remote_command_substitution", "execute remote content via command substitution", false}
	dgDecodedPipe     = Finding{"pipe_decoded_to_shell", "pipe decoded or obfuscated content to a shell", false}
	dgCloudMetadata   = Finding{"cloud_metadata", "access to a cloud metadata endpoint", false}
	dgXargsRm         = Finding{"xargs_rm", "xargs with rm", false}
	dgFindExecRm      = Finding{"find_exec_rm", "find -exec rm", false}
	dgFindDelete      = Finding{"find_delete", "find -delete", false}
	dgGitForcePush    = Finding{"git_force_push", "git push --force (rewrites remote history)", false}

	dgUnparsedDanger  = Finding{"unparsed_dangerous", "command the shell parser cannot read, with words that look dangerous", false}
	dgComputedName    = Finding{"computed_command_name", "command name computed at run time (variable, substitution, brace expansion, alias)", false}
	dgInterpreterCode = Finding{"interpreter_code", "inline interpreter code that deletes, overwrites, changes permissions or runs commands", false}
	dgShellStdin      = Finding{"shell_fed_code", "shell fed code through a here-string, heredoc, find -exec or xargs", false}
	dgScriptWriteRun  = Finding{"script_written_and_run", "script written and run in the same command", false}
	dgGitResetHard    = Finding{"git_reset_hard", "discard uncommitted changes (git reset --hard)", false}
	dgGitClean        = Finding{"git_clean", "delete untracked files (git clean -f)", false}
	dgGitDiscard      = Finding{"git_discard_changes", "discard working-tree changes (git checkout -- / git restore)", false}
	dgGitPushDelete   = Finding{"git_push_delete", "delete or mirror remote refs (git push --delete / --mirror)", false}
	dgGitBranchDelete = Finding{"git_branch_force_delete", "force-delete a branch (git branch -D)", false}
	dgGitStashDrop    = Finding{"git_stash_drop", "drop stashed changes (git stash drop/clear)", false}
	dgGitInlineAlias  = Finding{"git_inline_alias", "git alias or command setting given on the command line (git -c alias.x=...)", false}
	dgGitConfigRun    = Finding{"git_config_command", "git config defines a shell alias or a setting that runs a command (alias.x=!..., core.pager, ...)", false}
	dgWipeFile        = Finding{"wipe_file", "empty or destroy a file's contents (truncate, shred, > file, sed -i d)", false}
	dgChmodNone       = Finding{"chmod_remove_all", "remove all permissions recursively (chmod -R 000)", false}
	dgChattr          = Finding{"chattr", "change file attributes (chattr)", false}
	dgChownRecursive  = Finding{"chown_recursive", "recursive chown", false}
	dgKillPattern     = Finding{"kill_by_pattern", "kill processes by name or pattern (pkill, kill $(pgrep ...))", false}
	dgContainerStop   = Finding{"container_stop", "stop, kill, restart or force-remove containers (docker)", false}
	dgNamespaceShell  = Finding{"namespace_shell", "shell in another process's namespaces (nsenter without a command)", false}
	dgTypedEdits      = Finding{"typed_keys_edit", "keys typed into a terminal that edit the line (deletions, cursor moves, history), so what runs cannot be read", false}
	dgPageScript      = Finding{"browser_script", "JavaScript run in the browser's page (browser_console), acting as the user on that site", false}
)

// toolFinding is the finding of a tool whose every command needs
// approval: its command is no shell command line, and what it does
// cannot be judged.
func toolFinding(tool string) (Finding, bool) {
	if tool == "browser_console" {
		return dgPageScript, true
	}
	return Finding{}, false
}

// systemDirs are refused as the target of a recursive delete.
var systemDirs = lazy.Of(systemDirSet)

func systemDirSet() map[string]bool {
	return map[string]bool{
		"/home": true, "/root": true, "/etc": true, "/usr": true, "/var": true,
		"/bin": true, "/sbin": true, "/boot": true, "/lib": true, "/lib32": true,
		"/lib64": true, "/opt": true, "/srv": true, "/dev": true, "/proc": true,
		"/sys": true, "/snap": true, "/usr/bin": true, "/usr/lib": true,
		"/usr/local": true, "/usr/sbin": true, "/system": true, "/library": true,
		"/applications": true, "/users": true, "/private": true,
	}
}

// systemFilePrefixes: deleting a single file under these asks first.
var systemFilePrefixes = []string{"/etc/", "/usr/", "/bin/", "/sbin/", "/boot/", "/lib", "/opt/", "/srv/", "/root/", "/dev/", "/sys/", "/proc/", "/var/lib/", "/var/log/", "/private/etc/"}

// patterns lists every pattern, hardline first.
var patterns = []Finding{
	hlDeleteRoot, hlDeleteSystem, hlDeleteHome, hlFormat, hlBlockWrite, hlWipeDevice, hlForkBomb,
	hlKillAll, hlPower, hlDiskutilErase, hlTooDeep, hlUnparsed,
	dgRecursiveDelete, dgDeleteSystem, dgWorldWritable, dgChownRoot, dgDiskCopy, dgSQLDrop,
	dgSQLDeleteAll, dgSQLTruncate, dgSystemConfig, dgSensitiveFile, dgServiceStop, dgForceKill,
	dgKillall, dgRemotePipe, dgRemoteProcSubst, dgRemoteCmdSubst, dgDecodedPipe, dgCloudMetadata,
	dgXargsRm, dgFindExecRm, dgFindDelete, dgGitForcePush,
	dgUnparsedDanger, dgComputedName, dgInterpreterCode, dgShellStdin, dgScriptWriteRun, dgGitResetHard,
	dgGitClean, dgGitDiscard, dgGitPushDelete, dgGitBranchDelete, dgGitStashDrop, dgGitInlineAlias, dgGitConfigRun,
	dgWipeFile, dgChmodNone, dgChattr, dgChownRecursive, dgKillPattern, dgContainerStop, dgNamespaceShell, dgTypedEdits,
	dgPageScript,
}

// Patterns returns every pattern Check knows, hardline ones first.
func Patterns() []Finding { return append([]Finding(nil), patterns...) }

// Lookup finds the pattern a command_allowlist entry names, by key or by
// description, ignoring case and surrounding space, as the policy
// matches them.
func Lookup(entry string) (Finding, bool) {
	e := strings.ToLower(strings.TrimSpace(entry))
	for _, f := range patterns {
		if e == f.Key || e == strings.ToLower(f.Description) {
			return f, true
		}
	}
	return Finding{}, false
}
