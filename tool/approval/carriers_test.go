package approval

import (
	"slices"
	"testing"
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
