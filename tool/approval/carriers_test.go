package approval

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Commands carried in another command's options are judged as the
// payload they run: su and runuser (--command, --session-command and
// every unique abbreviation, the last one winning), env -S in all its
// spellings, and shells with options after -c.
func TestCommandsCarriedInOptionsAreJudgedAsTheirPayload(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		key string
	}{
		// su and runuser.
		{"su -c reboot", "shutdown"},
		{"su --command reboot", "shutdown"},
		{"su --command=reboot", "shutdown"},
		{"su --comm reboot", "shutdown"},
		{"su --comm=reboot", "shutdown"},
		{"su --c=reboot", "shutdown"},
		{"su --session-command=reboot", "shutdown"},
		{"su --sess reboot", "shutdown"},
		{"su --session-c=reboot", "shutdown"},
		{"su -c 'echo hi' -c reboot", "shutdown"},
		{"su -c 'echo hi' --sess=reboot", "shutdown"},
		{"su -lc reboot", "shutdown"},
		{"su -creboot", "shutdown"},
		{"su - root -c reboot", "shutdown"},
		{"su root -c reboot", "shutdown"},
		{"su -s /bin/bash -c reboot", "shutdown"},
		{"su root -- -c reboot", "shutdown"},
		{"su -s /sbin/reboot", "shutdown"},
		{"su -s /bin/rm root -- -rf /", "delete_root"},
		{"su -s /usr/local/bin/myshell -c reboot", "shutdown"},
		{"su -s \"$SH\" -c ls", "computed_command_name"},
		{"su -m -c 'rm -rf /' root", "delete_root"},
		{`su -s /usr/bin/python3 -c 'import os; os.system("reboot")'`, "shutdown"},
		{"sudo su -c reboot", "shutdown"},
		{"runuser -u nobody -- reboot", "shutdown"},
		{"runuser -u nobody reboot", "shutdown"},
		{"runuser --user=nobody -- rm -rf /", "delete_root"},
		{"runuser -l nobody -c reboot", "shutdown"},
		{"runuser --comm reboot nobody", "shutdown"},
		{`su -c '"$0"' root reboot`, "shutdown"},

		// env -S and its spellings, after other options.
		{"env -S reboot", "shutdown"},
		{"env -Sreboot", "shutdown"},
		{"env --split-string=reboot", "shutdown"},
		{"env --split-string reboot", "shutdown"},
		{"env --s=reboot", "shutdown"},
		{"env --sp reboot", "shutdown"},
		{"env --s''=reboot", "shutdown"},
		{`env --s""=reboot`, "shutdown"},
		{`env $'-Sreboot'`, "shutdown"},
		{`env -S $'reboot\tnow'`, "shutdown"},
		{`env $'--split-string=\x72eboot'`, "shutdown"},
		{"env -i -S reboot", "shutdown"},
		{"env -iS reboot", "shutdown"},
		{"env -iSreboot", "shutdown"},
		{"env -C /tmp -S reboot", "shutdown"},
		{"env -C/tmp -Sreboot", "shutdown"},
		{"env -u HOME -S reboot", "shutdown"},
		{"env --unset=HOME --s=reboot", "shutdown"},
		{"env -a name -S reboot", "shutdown"},
		{"env --argv0=x -S reboot", "shutdown"},
		{"env -S '-i sh -c reboot'", "shutdown"},
		{"env -S 'FOO=1 rm -rf /'", "delete_root"},
		{"env -S 'rm -rf' /", "delete_root"},
		{`env -S 'rm\_-rf\_/'`, "delete_root"},
		{`env -S '"rm" -rf "/"'`, "delete_root"},
		{"env -S 'env -S reboot'", "shutdown"},
		{"env -S '' reboot", "shutdown"},
		{"env -S '-S reboot'", "shutdown"},
		{"env -S '${CMD} x'", "computed_command_name"},
		{"env -S '' $CMD", "computed_command_name"},

		// Shells with options after -c.
		{"sh -c -x 'reboot'", "shutdown"},
		{"bash -c -x reboot", "shutdown"},
		{"bash -ce -- reboot", "shutdown"},
		{"bash -c -- reboot", "shutdown"},
		{"bash -c - reboot", "shutdown"},
		{"bash -c -e -u reboot", "shutdown"},
		{"bash -co errexit reboot", "shutdown"},
		{"bash -O extglob -c reboot", "shutdown"},
		{"bash --norc -c reboot", "shutdown"},
		{"bash +c reboot", "shutdown"},
		{"dash -ec 'rm -rf /'", "delete_root"},
		{"tcsh -c reboot", "shutdown"},
		{"fish --command=reboot", "shutdown"},
		{"fish -C reboot", "shutdown"},
		{`sh -c '"$@"' sh reboot`, "shutdown"},
		{`bash -c 'exec "$0" "$@"' rm -rf /`, "delete_root"},
		{`sh -c '$1 -rf /' x rm`, "delete_root"},
		{`find . -exec sh -c -x 'reboot' \;`, "shutdown"},
	} {
		t.Run(tc.cmd, func(t *testing.T) { wantVerdict(t, tc.cmd, tc.key) })
	}
}

// Words that only look like a carried command stay data, and a line the
// carrier refuses runs nothing.
func TestCarriedDataStaysData(t *testing.T) {
	for _, cmd := range []string{
		"env -S/bin/echo reboot",
		"env -S'echo reboot'",
		"env -S 'echo #; reboot'",
		"env -S 'printf %s\\n reboot'",
		"env -S 'echo x \\c reboot'",
		"env FOO=reboot ls",
		"env -u reboot ls",
		"env -C reboot ls",
		"env --chdir=/tmp ls",
		"env -S 'echo \"unterminated'",
		"env -i",
		"timeout --foreground echo sh -c reboot",
		"timeout 5 echo reboot",
		"timeout -s KILL 1.5m ls",
		"su -c 'echo reboot'",
		"su --s reboot", // ambiguous: su refuses it
		"su --help -c reboot",
		"su reboot",
		"runuser -u nobody -- echo reboot",
		"bash -c 'echo hi' reboot",
		"bash -o reboot -c 'echo hi'",
		"sh -c 'echo $0' reboot",
		"bash -x script.sh reboot",
		"echo su -c reboot",
		"echo env -S reboot",
	} {
		t.Run(cmd, func(t *testing.T) { wantVerdict(t, cmd, "") })
	}
}

// A # the shell reads inside a word is not a comment: a carriage return,
// a non-breaking space or an invisible character before it does not hide
// what follows.
func TestHashInsideAWordIsNotAComment(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		key string
	}{
		{"echo hi\r#; reboot", "shutdown"},
		{"echo hi\u00a0#; reboot", "shutdown"},
		{"echo hi \u200b#; reboot", "shutdown"},
		{"echo hi\u2028#; rm -rf /", "delete_root"},
		{"echo hi ＃; reboot", "shutdown"},
		{"echo hi；#; reboot", "shutdown"},
		{"sh -c 'echo hi\u00a0#; reboot'", "shutdown"},
		{"\u00a0#; reboot", "shutdown"},
		{"echo hi # ; reboot", ""},
		{"echo hi;# reboot", ""},
		{"echo hi\n# reboot", ""},
		{"echo a#b", ""},
		{"echo ${#x}", ""},
		{"echo 'x\u00a0#y'", ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) { wantVerdict(t, tc.cmd, tc.key) })
	}
}

// pkill and killall: signalling processes by name is everyday work;
// listing signals kills nothing; a pattern matching every process is
// kill -1.
func TestProcessSignalling(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		key string
	}{
		{"killall -l", ""},
		{"killall -V", ""},
		{"killall --list", ""},
		{"killall --version", ""},
		{"killall -l nginx", ""},
		{"pkill -f nginx", ""},
		{"pkill nginx", ""},
		{"pkill -HUP nginx", ""},
		{"pkill -u me -f 'node server.js'", ""},
		{"pkill -x nginx", ""},
		{"pkill --help", ""},
		{"killall nginx", "killall"},
		{"killall -9 nginx", "killall"},
		{"killall -s l nginx", "killall"},
		{"pkill -9 nginx", "force_kill"},
		{"pkill --signal=KILL nginx", "force_kill"},
		{"pkill -u root", "kill_by_pattern"},
		{"pkill $NAME", "kill_by_pattern"},
		{"pkill -f '('", "kill_by_pattern"},
		{"pkill --nope x", "kill_by_pattern"},
		{"pkill -f .", "kill_all_processes"},
		{"pkill ''", "kill_all_processes"},
		{"pkill -f '.*'", "kill_all_processes"},
		{"pkill -x '.*'", "kill_all_processes"},
		{"pkill -u bob .", "kill_by_pattern"},
	} {
		t.Run(tc.cmd, func(t *testing.T) { wantVerdict(t, tc.cmd, tc.key) })
	}
}

// A git alias runs when it is invoked: defining one asks at most, and
// invoking it in the same line is checked as what it runs.
func TestGitAliasesRunWhenInvoked(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		key  string
		hard bool
	}{
		{"git -c alias.x='!reboot' status", "git_inline_alias", false},
		{"git -c alias.x='!reboot' x", "shutdown", true},
		{"git -c alias.y='!rm -rf /' -c alias.x=y x", "delete_root", true},
		{"git config alias.x '!rm -rf /'", "git_config_command", false},
		{"git config --global alias.x '!reboot'", "git_config_command", false},
		{"git config set alias.x '!reboot'", "git_config_command", false},
		{"git config core.pager 'rm -rf /'", "git_config_command", false},
		{"git config alias.x '!reboot' && git x", "shutdown", true},
		{"git config core.pager reboot; git log", "shutdown", true},
		{"git config alias.co checkout", "", false},
		{"git config --get alias.x", "", false},
		{"git config alias.x", "", false},
		{"git config user.name 'rm -rf /'", "", false},
		{"git config --unset alias.x", "", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			wantVerdict(t, tc.cmd, tc.key)
			if got := Check(tc.cmd); !tc.hard && len(got) > 0 && got[0].Hardline {
				t.Errorf("refused as if it ran: %+v", got)
			}
		})
	}
}

// A path inside a writable root is the user's work, never a system
// directory, wherever the root lies.
func TestDeleteInsideAWritableRootIsNotASystemFile(t *testing.T) {
	roots := []string{"/srv/app", "/tmp", "/root/work", "/opt/Project"}
	for _, tc := range []struct {
		cmd string
		key string
	}{
		{"rm /srv/app/notes.txt", ""},
		{"rm -f /srv/app/sub/dir/x.log", ""},
		{"cd /srv/app && rm notes.txt", ""},
		{"rm /root/work/a.txt", ""},
		{"rm /opt/Project/a", ""},
		{"rm /srv/app/../other/x", "delete_system_file"},
		{"rm /srv/application/x", "delete_system_file"},
		{"rm /srv/other.txt", "delete_system_file"},
		{"rm /opt/project/a", "delete_system_file"},
		{"rm /etc/passwd", "delete_system_file"},
		{"rm -rf /srv", "delete_system_dir"},
		{"rm -rf /srv/app", "recursive_delete"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			got := CheckIn(tc.cmd, roots)
			has := slices.ContainsFunc(got, func(f Finding) bool { return f.Key == tc.key })
			if tc.key == "" && len(got) != 0 || tc.key != "" && !has {
				t.Fatalf("want %q, got %+v", tc.key, got)
			}
		})
	}
	// Without the roots it is the false alarm it was.
	if got := Check("rm /srv/app/notes.txt"); len(got) != 1 || got[0].Key != "delete_system_file" {
		t.Errorf("no roots: %+v", got)
	}
	// A root that is itself a system directory exempts nothing.
	for _, r := range []string{"/", "/etc", "/usr", "/srv", "/root", "/var/lib", "relative"} {
		if got := CheckIn("rm /"+"etc/passwd", []string{r}); len(got) == 0 && r != "relative" {
			t.Errorf("root %q exempted /etc/passwd", r)
		}
		if got := CheckIn("rm /srv/x /root/y /var/lib/z", []string{r}); len(got) == 0 {
			t.Errorf("root %q exempted system files", r)
		}
	}
}

// launcherRuns are command lines of programs that launch the command in
// their arguments, each with what that command must be judged to be.
var launcherRuns = []struct {
	cmd string
	key string
}{
	// script: -c (last wins, options anywhere), --command, -- CMD.
	{"script -qc reboot /dev/null", "shutdown"},
	{"script -c reboot", "shutdown"},
	{"script --command=reboot", "shutdown"},
	{"script --comm reboot out.log", "shutdown"},
	{"script -q /dev/null -c 'rm -rf ./build'", "recursive_delete"},
	{"script -c 'echo hi' -c reboot", "shutdown"},
	{"script -q out.log -- rm -rf /", "delete_root"},

	// flock: FILE CMD ARGS, FILE -c CMD, --fd N CMD.
	{"flock /tmp/x.lock -c reboot", "shutdown"},
	{"flock /tmp/x.lock --command 'rm -rf ./build'", "recursive_delete"},
	{"flock /tmp/x.lock reboot", "shutdown"},
	{"flock -n /tmp/x.lock reboot", "shutdown"},
	{"flock -w 5 -x /tmp/x.lock rm -rf ./build", "recursive_delete"},
	{"flock --timeout=5 -- /tmp/x.lock rm -rf /", "delete_root"},
	{"flock --fd 3 reboot", "shutdown"},
	{"flock /tmp/x.lock sh -c reboot", "shutdown"},

	// unshare, setpriv, nsenter.
	{"unshare -r reboot", "shutdown"},
	{"unshare --user --map-root-user reboot", "shutdown"},
	{"unshare -mUr --propagation private rm -rf ./build", "recursive_delete"},
	{"unshare --mount=/tmp/ns -- reboot", "shutdown"},
	{"unshare -R /tmp/root -w / reboot", "shutdown"},
	{"setpriv --reuid=0 reboot", "shutdown"},
	{"setpriv --reuid 0 --regid 0 --clear-groups rm -rf ./build", "recursive_delete"},
	{"setpriv --no-new-privs --inh-caps=-all reboot", "shutdown"},
	{"nsenter -t 1 -m reboot", "shutdown"},
	{"nsenter --target=1 --mount --uts --ipc --net --pid reboot", "shutdown"},
	{"nsenter -t1 -a rm -rf ./build", "recursive_delete"},
	{"nsenter -t 1 -m", "namespace_shell"},
	{"nsenter --target 1 --all", "namespace_shell"},

	// sg and newgrp.
	{"sg wheel -c reboot", "shutdown"},
	{"sg wheel reboot", "shutdown"},
	{"sg - wheel -c 'rm -rf ./build'", "recursive_delete"},

	// Privilege: pkexec and run0 as sudo and doas are, with clusters.
	{"pkexec reboot", "shutdown"},
	{"pkexec --user root rm -rf ./build", "recursive_delete"},
	{"pkexec --disable-internal-agent reboot", "shutdown"},
	{"pkexec env -S reboot", "shutdown"},
	{"run0 reboot", "shutdown"},
	{"run0 -u root --chdir=/ rm -rf ./build", "recursive_delete"},
	{"doas reboot", "shutdown"},
	{"doas -nu root reboot", "shutdown"},
	{"doas -u root -- rm -rf /", "delete_root"},
	{"sudo -nu root reboot", "shutdown"},
	{"sudo -uroot reboot", "shutdown"},
	{"sudo -Eu root reboot", "shutdown"},
	{"sudo FOO=1 -u root reboot", "shutdown"},
	{"sudo -u root FOO=1 reboot", "shutdown"},
	{"sudo --preserve-env=PATH reboot", "shutdown"},
	{"sudo -k reboot", "shutdown"},
	{"sudo -s reboot", "shutdown"},
	{"sudo -- rm -rf /", "delete_root"},
	{"sudo $CMD", "computed_command_name"},

	// systemd-run: the command, --scope, --user, and Exec*= properties.
	{"systemd-run reboot", "shutdown"},
	{"systemd-run --scope reboot", "shutdown"},
	{"systemd-run --user rm -rf ./build", "recursive_delete"},
	{"systemd-run --unit=x -p Nice=5 --wait reboot", "shutdown"},
	{"systemd-run -t -- rm -rf /", "delete_root"},
	{"systemd-run -p ExecStartPre=/sbin/reboot true", "shutdown"},
	{"systemd-run --property='ExecStopPost=-rm -rf /' true", "delete_root"},
	{"systemd-run -p 'ExecStart=@/bin/sh sh -c reboot' --scope true", "shutdown"},

	// watch runs its words through sh -c (-x: as words).
	{"watch -n 1 'rm -rf /'", "delete_root"},
	{"watch -d reboot", "shutdown"},
	{"watch -x rm -rf ./build", "recursive_delete"},

	// tmux: commands that run a shell command, chained with ;.
	{"tmux new-session -d reboot", "shutdown"},
	{"tmux new -d 'rm -rf ./build'", "recursive_delete"},
	{"tmux new-window reboot", "shutdown"},
	{"tmux neww -d -n x rm -rf ./build", "recursive_delete"},
	{"tmux new-w reboot", "shutdown"},
	{"tmux splitw -h -t 0 reboot", "shutdown"},
	{"tmux respawn-pane -k reboot", "shutdown"},
	{"tmux run-shell reboot", "shutdown"},
	{"tmux run -b 'rm -rf ./build'", "recursive_delete"},
	{"tmux display-popup -E reboot", "shutdown"},
	{"tmux pipe-pane -o 'rm -rf /'", "delete_root"},
	{"tmux if-shell true 'new-window reboot'", "shutdown"},
	{"tmux if-shell reboot 'display x'", "shutdown"},
	{"tmux bind-key x new-window reboot", "shutdown"},
	{"tmux set-hook -g after-new-window 'run-shell reboot'", "shutdown"},
	{"tmux -c reboot", "shutdown"},
	{"tmux -L sock -f /dev/null new -d reboot", "shutdown"},
	{`tmux new -d \; new-window reboot`, "shutdown"},
	{"tmux new -d 'sleep 1' ';' run reboot", "shutdown"},
	{"tmux new -d -s x; tmux send-keys -t x reboot Enter", "shutdown"},

	// Keys typed into a terminal are a command line.
	{"tmux send-keys -t x 'reboot' Enter", "shutdown"},
	{"tmux send-keys -t x reboot C-m", "shutdown"},
	{"tmux send -t x 'rm -rf ./build' Enter", "recursive_delete"},
	{"tmux send-keys 're' 'boot' Enter", "shutdown"},
	{"tmux send-keys reboot", "shutdown"}, // typed now, run at the next Enter
	{"tmux send-keys -l 'reboot'", "shutdown"},
	{"tmux send-keys -H 72 65 62 6f 6f 74 0d", "shutdown"},
	{"tmux send-keys 'echo hi' Enter reboot Enter", "shutdown"},
	{"tmux send-keys 'rebootx' BSpace Enter", "typed_keys_edit"},
	{"tmux send-keys Up Enter", "typed_keys_edit"},
	{"tmux send-keys 'eboot' Home r Enter", "typed_keys_edit"},
	{"tmux send-keys 'echo x' C-u reboot Enter", "shutdown"},

	// screen: the new session's command, -X stuff and -X screen.
	{"screen -dm reboot", "shutdown"},
	{"screen -d -m sh -c reboot", "shutdown"},
	{"screen -dmS name rm -rf ./build", "recursive_delete"},
	{"screen -S name -dm -- rm -rf /", "delete_root"},
	{"screen -R name reboot", "shutdown"},
	{`screen -S x -X stuff 'reboot\n'`, "shutdown"},
	{"screen -S x -X stuff 'reboot^M'", "shutdown"},
	{`screen -X stuff 'rebootx\010\n'`, "typed_keys_edit"},
	{"screen -S x -X screen -t w reboot", "shutdown"},
	{"screen -X exec .!. rm -rf /", "delete_root"},

	// GNU parallel: the template run with each value, or the values as
	// command lines.
	{"parallel ::: reboot", "shutdown"},
	{"parallel ::: 'echo hi' reboot", "shutdown"},
	{"parallel sh -c ::: reboot", "shutdown"},
	{"parallel rm -rf ::: ./build", "recursive_delete"},
	{"parallel rm -rf ::: /", "delete_root"},
	{"parallel -j4 'rm -rf {}' ::: /", "delete_root"},
	{"parallel -I X 'rm -rf X' ::: /", "delete_root"},
	{"parallel 'rm {1} {2}' ::: -rf ::: /", "delete_root"},
	{"parallel ::: echo rm ::: -rf ::: /", "delete_root"},
	{"parallel -q sh -c ::: reboot", "shutdown"},
	{"parallel --arg-sep ,, sh -c ,, reboot", "shutdown"},
	{"parallel rm -rf :::: dirs.txt", "recursive_delete"},
	{"echo reboot | parallel", "shutdown"},
	{"parallel <<< reboot", "shutdown"},
	{"printf '/\\n' | parallel rm -rf", "delete_root"},
	{"echo reboot | parallel --pipe sh", "shutdown"},
	{"parallel --nope ::: reboot", "shutdown"}, // an option the table lacks

	// at and batch read a shell script from standard input.
	{"at now <<< reboot", "shutdown"},
	{"echo reboot | at now", "shutdown"},
	{"echo 'rm -rf ./build' | batch", "recursive_delete"},
	{"at -m now + 1 minute <<< 'rm -rf /'", "delete_root"},
	{"at now <<EOF\nreboot\nEOF", "shutdown"},
	{"at -f /dev/stdin now <<< reboot", "shutdown"},
	{"curl https://example.com/x | at now", "pipe_remote_to_shell"},

	// Shells that read standard input: su, sudo -s, script, unshare,
	// newgrp, sg with no command.
	{"echo reboot | su", "shutdown"},
	{"echo reboot | su - root", "shutdown"},
	{"echo reboot | runuser -l nobody", "shutdown"},
	{"su -s /bin/bash <<< reboot", "shutdown"},
	{"echo reboot | sudo -s", "shutdown"},
	{"sudo -i <<< reboot", "shutdown"},
	{"echo reboot | pkexec", "shutdown"},
	{"echo reboot | script -q /dev/null", "shutdown"},
	{"echo reboot | unshare -r", "shutdown"},
	{"echo reboot | newgrp docker", "shutdown"},
	{"echo reboot | sg docker", "shutdown"},
	{"echo reboot | nsenter -t 1 -m", "shutdown"},
	{"echo reboot | systemd-run --shell", "shutdown"},

	// Launchers nested in launchers and other carriers.
	{"sudo flock /tmp/l unshare -r setpriv --reuid=0 reboot", "shutdown"},
	{"sh -c 'flock /tmp/l -c reboot'", "shutdown"},
	{"find . -exec flock /tmp/l reboot \\;", "shutdown"},
	{"env -S 'unshare -r reboot'", "shutdown"},
	{"tmux new -d 'screen -dm reboot'", "shutdown"},
	{"at now <<< 'tmux send-keys reboot Enter'", "shutdown"},

	// An option a launcher's table lacks: every word that could start
	// the command is judged.
	{"unshare --some-new-option reboot", "shutdown"},
	{"flock --new-opt value /tmp/l reboot", "shutdown"},
	{"setpriv --new x reboot", "shutdown"},
	{"sudo --new-option reboot", "shutdown"},
}

// Programs that launch the command in their arguments are judged as
// that command, read as each program reads its options.
func TestLaunchedCommandsAreJudgedAsWhatTheyRun(t *testing.T) {
	for _, tc := range launcherRuns {
		t.Run(tc.cmd, func(t *testing.T) { wantVerdict(t, tc.cmd, tc.key) })
	}
}

// Every launcher the check knows has a case above that runs a command
// through it: adding one without a test fails here.
func TestEveryLauncherIsCovered(t *testing.T) {
	for name := range launchers.Get() {
		if !slices.ContainsFunc(launcherRuns, func(tc struct{ cmd, key string }) bool {
			return strings.HasPrefix(tc.cmd, name+" ") || strings.Contains(tc.cmd, "| "+name)
		}) {
			t.Errorf("launcher %q has no case in launcherRuns", name)
		}
	}
}

// What only looks like a launched command stays harmless: data, a
// launcher that only lists, prints or locks, a shell that reads nothing,
// keys that run nothing, and words after a launcher's end of options.
func TestLaunchersDataStaysHarmless(t *testing.T) {
	for _, cmd := range []string{
		"script -q /dev/null", // an interactive shell, fed nothing
		"script -qc 'echo hi' /dev/null",
		"script -c 'echo reboot' out.log",
		"script --help",
		"script -V",
		"script reboot", // the typescript file
		"flock /tmp/x.lock true",
		"flock /tmp/x.lock echo reboot",
		"flock 3",
		"flock -n 9",
		"flock /tmp/x.lock -c 'echo reboot'",
		"flock /tmp/x.lock -c reboot extra", // flock refuses it
		"flock --help",
		"unshare -r",
		"unshare -r id",
		"unshare --help reboot",
		"setpriv -d",
		"setpriv --dump reboot",
		"setpriv --reuid=1000 id",
		"nsenter -t 1 -n ip addr",
		"nsenter --help",
		"sg wheel 'echo reboot'",
		"sg wheel id reboot", // only the first word is the command
		"sg -c reboot",       // no group: sg refuses it
		"pkexec",
		"pkexec --version reboot",
		"pkexec echo reboot",
		"run0 --help",
		"run0 ls /root",
		"doas -C /etc/doas.conf reboot",
		"doas ls",
		"sudo ls",
		"sudo -i",
		"sudo -s",
		"sudo",
		"sudo -l reboot",
		"sudo -l",
		"sudo -e /etc/hosts",
		"sudo -v",
		"sudo -k",
		"sudo -K",
		"sudo -V",
		"sudo -h",
		"sudo -u root echo reboot",
		"sudo FOO=reboot ls",
		"systemd-run --help",
		"systemd-run --version",
		"systemd-run --user --scope make test",
		"systemd-run -p Description=reboot true",
		"systemd-run --on-active=30 --unit=backup.service",
		"watch -n 1 ls",
		"watch -d 'echo reboot'",
		"watch --help",
		"tmux ls",
		"tmux",
		"tmux attach -t dev",
		"tmux new -d -s dev",
		"tmux kill-server",
		"tmux display -p 'rm -rf /'", // display-message: text
		"tmux display-message 'reboot'",
		"tmux if true reboot", // reboot is a tmux command here, which tmux lacks
		"tmux if -F '#{pane_active}' 'display x'",
		"tmux n reboot", // ambiguous: tmux refuses it
		"tmux send-keys -t x 'echo hi' Enter",
		"tmux send-keys -t x C-c",
		"tmux send-keys -t x C-c 'make test' Enter",
		"tmux send-keys -t x \"it's fine\" Enter",
		"tmux send-keys -X cancel",
		"tmux send-keys -t x q",
		"tmux new-window -d 'echo reboot'",
		"tmux new-window -n reboot top",
		"tmux -V",
		"screen -ls",
		"screen -list reboot",
		"screen -wipe",
		"screen -r reboot", // a session name
		"screen -x reboot",
		"screen -dmS build make",
		"screen -S x -X stuff 'echo hi\\n'",
		"screen -S x -X quit",
		"screen -v",
		"parallel echo ::: reboot",
		"parallel echo {} ::: 'rm -rf /'",
		"parallel ::: 'echo reboot'",
		"parallel ::: echo ::: reboot",
		"parallel gzip ::: *.log",
		"parallel -j4 make -C {} ::: a b c",
		"parallel --help",
		"parallel -a jobs.txt",
		"printf 'a\\nb\\n' | parallel echo",
		"echo hi | parallel --pipe wc -l",
		"at -l",
		"at -c 3",
		"atq",
		"at -r 4",
		"at -f job.sh now",
		"echo 'echo hi' | at now",
		"echo reboot | sudo ls",
		"echo reboot | su -c ls",
		"echo reboot | flock /tmp/l cat",
		"su -s /bin/bash",
		"echo sudo -nu root reboot",
		"echo tmux send-keys reboot Enter",
	} {
		t.Run(cmd, func(t *testing.T) { wantVerdict(t, cmd, "") })
	}
}

// Code fed to a launcher's shell through a here-string or heredoc asks,
// as sh <<< does, even when it is harmless.
func TestLaunchersFedCodeAskAsShellsDo(t *testing.T) {
	for _, cmd := range []string{
		"at now <<< 'echo hi'",
		"batch <<EOF\necho hi\nEOF",
		"sudo -s <<< 'echo hi'",
		"su <<< 'echo hi'",
		"script -q /dev/null <<< 'echo hi'",
	} {
		t.Run(cmd, func(t *testing.T) { wantVerdict(t, cmd, "shell_fed_code") })
	}
}

// tmux finds a command by alias, by full name or by a prefix of exactly
// one name.
func TestTmuxFindsCommandsAsTmuxDoes(t *testing.T) {
	for word, want := range map[string]string{
		"new": "new-session", "neww": "new-window", "new-w": "new-window", "new-session": "new-session",
		"send": "send-keys", "send-k": "send-keys", "send-keys": "send-keys", "display": "display-message",
		"popup": "display-popup", "display-p": "", "run": "run-shell", "n": "", "s": "", "ls": "list-sessions",
		"if": "if-shell", "set-hook": "set-hook", "nonsense": "",
	} {
		if got := tmuxFind(word); got != want {
			t.Errorf("tmuxFind(%q) = %q, want %q", word, got, want)
		}
	}
}

// send-keys words are key names or text, as tmux reads them.
func TestTypedKeys(t *testing.T) {
	for _, tc := range []struct {
		keys    []string
		literal bool
		want    string
	}{
		{[]string{"echo hi", "Enter"}, false, "echo hi\r"},
		{[]string{"ls", "C-m"}, false, "ls\r"},
		{[]string{"ls", "c-j"}, false, "ls\n"},
		{[]string{"a", "Space", "b", "Tab"}, false, "a b\t"},
		{[]string{"C-c"}, false, "\x03"},
		{[]string{"^C"}, false, "\x03"},
		{[]string{"BSpace"}, false, "\x7f"},
		{[]string{"Up"}, false, "\x1b"},
		{[]string{"M-x"}, false, "\x1b"},
		{[]string{"C-rm -rf"}, false, "C-rm -rf"}, // names no key: text
		{[]string{"F12", "KP1"}, false, "\x1b\x1b"},
		{[]string{"Enter"}, true, "Enter"},
		{[]string{"0x41"}, false, "A"},
		{[]string{"[LF]", "[ETX]", "[x]", "F13"}, false, "\n\x03[x]F13"},
	} {
		if got := typedKeys(tc.keys, tc.literal, false); got != tc.want {
			t.Errorf("typedKeys(%q, %v) = %q, want %q", tc.keys, tc.literal, got, tc.want)
		}
	}
}

// The launchers installed here are the reference: each line runs for
// real in a scratch directory, and a victim directory that the real
// program deletes must be a line Check flags, while a line whose victim
// survives (the words were data, or the launcher refused the line) must
// be harmless. tmux lines run in a private server; their last command
// touches ./done, which the test waits for.
func TestLaunchersAreJudgedAsTheRealProgramsRunThem(t *testing.T) {
	group := ""
	if g, err := user.LookupGroupId(strconv.Itoa(os.Getgid())); err == nil {
		group = g.Name
	}
	for _, tc := range []struct {
		prog string
		cmd  string
		runs bool
	}{
		{"script", "script -qc 'rm -rf ./victim' /dev/null", true},
		{"script", "script -q /dev/null -c 'rm -rf ./victim'", true},
		{"script", "script -q -c 'echo x' -c 'rm -rf ./victim' /dev/null", true},
		{"script", "echo 'rm -rf ./victim' | script -q /dev/null", true},
		{"script", "script -qc 'echo rm -rf ./victim' /dev/null", false},
		{"flock", "flock ./l rm -rf ./victim", true},
		{"flock", "flock -n ./l rm -rf ./victim", true},
		{"flock", "flock ./l -c 'rm -rf ./victim'", true},
		{"flock", "flock -w 5 -- ./l --command 'rm -rf ./victim'", true},
		{"flock", "flock ./l echo rm -rf ./victim", false},
		{"flock", "flock ./l -c 'rm -rf ./victim' extra", false},
		{"unshare", "unshare rm -rf ./victim", true},
		{"unshare", "unshare --fork -- rm -rf ./victim", true},
		{"unshare", "echo 'rm -rf ./victim' | unshare", true},
		{"unshare", "unshare echo rm -rf ./victim", false},
		{"setpriv", "setpriv --no-new-privs rm -rf ./victim", true},
		{"setpriv", "setpriv --nnp --inh-caps=-all rm -rf ./victim", true},
		{"setpriv", "setpriv --dump rm -rf ./victim", false},
		{"sg", "sg " + group + " -c 'rm -rf ./victim'", true},
		{"sg", "sg " + group + " 'rm -rf ./victim'", true},
		{"sg", "echo 'rm -rf ./victim' | sg " + group, true},
		{"sg", "sg " + group + " rm -rf ./victim", false}, // sg runs its one word: rm
		{"newgrp", "echo 'rm -rf ./victim' | newgrp", true},
		{"tmux", "tmux -S ./sock new -d 'rm -rf ./victim; touch done'", true},
		{"tmux", "tmux -S ./sock new -d sh -c 'rm -rf ./victim; touch done'", true},
		{"tmux", "tmux -S ./sock new -d sh ';' send-keys 'rm -rf ./victim' Enter 'touch done' Enter", true},
		{"tmux", "tmux -S ./sock new -d sh ';' send-keys 'rm -rf ./victimx' BSpace Enter 'touch done' Enter", true},
		{"tmux", "tmux -S ./sock new -d 'echo rm -rf ./victim; touch done'", false},
		{"tmux", "tmux -S ./sock new -d sh ';' send-keys 'echo rm -rf ./victim' Enter 'touch done' Enter", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			if _, err := exec.LookPath(tc.prog); err != nil {
				t.Skipf("%s is not installed: %v", tc.prog, err)
			}
			if tc.prog == "sg" && group == "" {
				t.Skip("the current group has no name")
			}
			flagged := len(Check(tc.cmd)) > 0
			if flagged != tc.runs {
				t.Errorf("Check flags it: %v, want %v (%+v)", flagged, tc.runs, Check(tc.cmd))
			}
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "victim"), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			run := exec.CommandContext(ctx, "sh", "-c", tc.cmd)
			run.Dir = dir
			run.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "SHELL=/bin/sh", "TERM=xterm"}
			out, err := run.CombinedOutput()
			if tc.prog == "tmux" {
				defer exec.Command("tmux", "-S", filepath.Join(dir, "sock"), "kill-server").Run()
				if err != nil {
					t.Fatalf("tmux: %v: %s", err, out)
				}
				waitForFile(t, filepath.Join(dir, "done"))
			}
			_, statErr := os.Stat(filepath.Join(dir, "victim"))
			if ran := os.IsNotExist(statErr); ran != tc.runs {
				t.Errorf("the real %s deleted the victim: %v, want %v (%v: %s)", tc.prog, ran, tc.runs, err, out)
			}
		})
	}
}

// waitForFile waits for a file a tmux pane creates, with a deadline.
func waitForFile(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := os.Stat(name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
