package approval

import (
	"slices"
	"strings"
	"testing"
)

// parsedCases are commands only a real shell parser reads right: the
// disguises of every pattern, and data that only looks dangerous.
// "" is harmless; otherwise the key the command must match.
var parsedCases = []struct {
	cmd string
	key string
}{
	// Hardline entries in disguise.
	{`python3 -c "import shutil; shutil.rmtree('/')"`, "delete_root"},
	{`python3 -c "shutil.rmtree('/')"`, "delete_root"},
	{"{rm,-rf,/}", "delete_root"},
	{"X=/; rm -rf $X", "delete_root"},
	{"X=rm; $X -rf /", "delete_root"},
	{"cd / && rm -rf *", "delete_root"},
	{"cd /; rm -rf .", "delete_root"},
	{"cd /etc && rm -rf *", "delete_system_dir"},
	{"cd ~ && rm -rf *", "delete_home"},
	{"find / -delete", "delete_root"},
	{"find / -type f -delete", "delete_root"},
	{"echo b > /proc/sysrq-trigger", "shutdown"},
	{"kexec -e", "shutdown"},
	{"systemctl isolate poweroff.target", "shutdown"},
	{"systemctl start reboot.target", "shutdown"},
	{`perl -e 'exec "reboot"'`, "shutdown"},
	{`perl -e 'system("rm -rf /")'`, "delete_root"},
	{`ruby -e 'system("reboot")'`, "shutdown"},
	{`node -e 'require("child_process").execSync("rm -rf /")'`, "delete_root"},
	{`python3 -c 'import os; os.system("reboot")'`, "shutdown"},
	{`python3 -c 'import subprocess; subprocess.run(["rm", "-rf", "/"])'`, "delete_root"},
	{`php -r 'shell_exec("rm -rf /");'`, "delete_root"},
	{`awk 'BEGIN { system("rm -rf /") }'`, "delete_root"},
	{"su --command='reboot'", "shutdown"},
	{"su -c reboot", "shutdown"},
	{"env -S '-i sh -c reboot'", "shutdown"},
	{"git -c alias.x='!rm -rf /' x", "delete_root"},
	{"ｒｍ -rf /", "delete_root"},
	{"rм -rf /", "delete_root"},
	{"ls\rrm -rf /", "delete_root"},
	{"ls # harmless\rrm -rf /", "delete_root"},
	{"ls\u2028rm -rf /", "delete_root"},
	{"r\u200bm -rf /", "delete_root"},
	{`$(echo rm) -rf /`, "delete_root"},
	{"`echo rm` -rf /", "delete_root"},
	{`$(printf 'r\x6d') -rf /`, "delete_root"},
	{"IFS=,; c=rm,-rf,/; $c", "delete_root"},
	{"alias x='rm -rf /'; x", "delete_root"},
	{`bash <<< "rm -rf /"`, "delete_root"},
	{"bash <<EOF\nrm -rf /\nEOF", "delete_root"},
	{"sh <<'EOF'\nreboot\nEOF", "shutdown"},
	{"python3 - <<EOF\nimport shutil\nshutil.rmtree('/')\nEOF", "delete_root"},
	{`find . -exec sh -c 'rm -rf /' \;`, "delete_root"},
	{`ls | xargs sh -c 'reboot'`, "shutdown"},
	{"echo 'rm -rf /' > x.sh; sh x.sh", "delete_root"},
	{"printf 'reboot\\n' > x.sh && chmod +x x.sh && ./x.sh", "shutdown"},
	{"cat > x.sh <<EOF\nrm -rf /\nEOF\nbash x.sh", "delete_root"},
	{"f() { rm -rf /; }; f", "delete_root"},
	{"(cd /tmp; (rm -rf /))", "delete_root"},
	{"true | rm -rf /", "delete_root"},
	{"echo x || rm -rf / && ls", "delete_root"},
	{"cat <<EOF\n$(rm -rf /)\nEOF", "delete_root"},
	{"[[ $(rm -rf /) ]]", "delete_root"},
	{"for i in 1; do rm -rf /; done", "delete_root"},
	{"while true; do reboot; done", "shutdown"},
	{"case x in x) rm -rf / ;; esac", "delete_root"},
	{"echo $(echo $(rm -rf /))", "delete_root"},
	{"D=/etc; rm -rf \"$D\"", "delete_system_dir"},
	{"export T=/; rm -rf $T", "delete_root"},
	{"echo cm0gLXJmIC8= | base64 -d > x.sh; sh x.sh", "delete_root"},
	{"sudo -u root sh -c 'rm -rf /'", "delete_root"},
	{"bash -c \"bash -c 'rm -rf /'\"", "delete_root"},
	{"dd if=/dev/zero of=/dev/sda", "write_block_device"},

	// Computed command names.
	{"$CMD -rf dir", "computed_command_name"},
	{"X=rm; $X -rf d", "recursive_delete"},
	{"X=rm; $X -rf d", "computed_command_name"},
	{`"$EDITOR" file`, "computed_command_name"},
	{"$(which python3) x.py", "computed_command_name"},
	{"{ls,-la}", "computed_command_name"},
	{"alias ll='ls -l'; ll", "computed_command_name"},
	{"sudo $X", "computed_command_name"},

	// Interpreter code.
	{`python3 -c "import os; os.remove('f')"`, "interpreter_code"},
	{`python3 -c "open('f','w').write('x')"`, "interpreter_code"},
	{`python3 -c "import os; os.chmod('f', 0o777)"`, "interpreter_code"},
	{`perl -e 'unlink "f"'`, "interpreter_code"},
	{`perl -pi -e 's/a/b/' f`, ""},
	{`node -e 'require("fs").rmSync("d", {recursive: true})'`, "interpreter_code"},
	{`ruby -e 'File.delete("f")'`, "interpreter_code"},
	{`php -r 'unlink("f");'`, "interpreter_code"},
	{`awk '{ print > "out" }' f`, "interpreter_code"},
	{`python3 -c "open('/home/me/.ssh/authorized_keys','a').write('k')"`, "overwrite_sensitive_file"},
	{`python3 -c "import shutil; shutil.rmtree('/etc')"`, "delete_system_dir"},

	// Shells fed code.
	{`bash <<< "ls"`, "shell_fed_code"},
	{"sh <<EOF\nls\nEOF", "shell_fed_code"},
	{`find . -name x -exec sh -c 'echo {}' \;`, "shell_fed_code"},
	{`ls | xargs -n1 sh -c 'echo $0'`, "shell_fed_code"},
	{"echo ls > run.sh; bash run.sh", "script_written_and_run"},
	{"printf '#!/usr/bin/env python3\\nprint(\"hi\")\\n' > x.py && ./x.py", "script_written_and_run"},
	{"printf '#!/usr/bin/env python3\\nimport os\\nos.system(\"reboot\")\\n' > x.py && ./x.py", "shutdown"},
	{"printf 'reboot\\n' > x && ./x", "shutdown"},

	// Destructive git.
	{"git reset --hard", "git_reset_hard"},
	{"git reset --hard HEAD~3", "git_reset_hard"},
	{"git clean -fd", "git_clean"},
	{"git clean -xdf", "git_clean"},
	{"git checkout -- .", "git_discard_changes"},
	{"git checkout .", "git_discard_changes"},
	{"git restore .", "git_discard_changes"},
	{"git restore src/main.go", "git_discard_changes"},
	{"git push --force origin main", "git_force_push"},
	{"git push origin +main:main", "git_force_push"},
	{"git push --mirror backup", "git_push_delete"},
	{"git push --delete origin feature", "git_push_delete"},
	{"git push origin :feature", "git_push_delete"},
	{"git branch -D feature", "git_branch_force_delete"},
	{"git branch --delete --force feature", "git_branch_force_delete"},
	{"git stash drop", "git_stash_drop"},
	{"git stash clear", "git_stash_drop"},
	{"git -c alias.x=status x", "git_inline_alias"},
	{"git -c core.sshCommand='ssh -i k' fetch", "git_inline_alias"},
	{"git -C repo reset --hard", "git_reset_hard"},

	// Wiping a file.
	{"truncate -s 0 f", "wipe_file"},
	{"shred -u secrets.txt", "wipe_file"},
	{"cp /dev/null f", "wipe_file"},
	{": > f", "wipe_file"},
	{"> f", "wipe_file"},
	{"true > f", "wipe_file"},
	{"cat /dev/null > f", "wipe_file"},
	{"tee f < /dev/null", "wipe_file"},
	{"sed -i d f", "wipe_file"},
	{"sed -i '1,$d' f", "wipe_file"},
	{"ln -sf /dev/null f", "wipe_file"},

	// Permissions, attributes, processes, containers, services.
	{"chmod -R 000 dir", "chmod_remove_all"},
	{"chattr +i f", "chattr"},
	{"chown -R me dir", "chown_recursive"},
	{"chown -R root dir", "chown_root"},
	{"pkill -u root", "kill_by_pattern"},
	{"kill $(pgrep node)", "kill_by_pattern"},
	{"kill -9 `pidof java`", "kill_by_pattern"},
	{"pgrep node | xargs kill", "kill_by_pattern"},
	{"killall python", "killall"},
	{"docker rm -f web", "container_stop"},
	{"docker stop web", "container_stop"},
	{"docker kill web", "container_stop"},
	{"docker restart web", "container_stop"},
	{"docker container stop web", "container_stop"},
	{"podman stop web", "container_stop"},
	{"systemctl stop nginx", "service_stop"},
	{"systemctl restart nginx", "service_stop"},

	// SQL sent to a database client, escaped forms included.
	{`printf 'D\x52OP TABLE t' | sqlite3 db`, "sql_drop"},
	{`echo -e 'DROP\x20TABLE t' | psql`, "sql_drop"},
	{"sqlite3 db <<EOF\nDELETE FROM users;\nEOF", "sql_delete_without_where"},
	{`sqlite3 db <<< "TRUNCATE TABLE t"`, "sql_truncate"},
	{`psql -c "$(printf 'DROP TABLE t')"`, "sql_drop"},
	{`mysql -e "drop database prod"`, "sql_drop"},

	// Credential stores.
	{"echo x > ~/.aws/config", "overwrite_sensitive_file"},
	{"cp creds.json ~/.config/gcloud/application_default_credentials.json", "overwrite_sensitive_file"},
	{"echo '{}' > ~/.docker/config.json", "overwrite_sensitive_file"},
	{"mv kubeconfig ~/.kube/config", "overwrite_sensitive_file"},
	{"tee ~/.ssh/config < x", "overwrite_sensitive_file"},
	{"echo machine > ~/.netrc", "overwrite_sensitive_file"},
	{"echo K=v >> $HERMES_HOME/.env", "overwrite_sensitive_file"},
	{"cp a.json $HERMES_HOME/auth.json", "overwrite_sensitive_file"},
	{"sed -i s/a/b/ $HERMES_HOME/config.yaml", "overwrite_sensitive_file"},
	{"sed -i 's/x/y/' ~/.ssh/known_hosts", "overwrite_sensitive_file"},
	{"echo x > $HOME/.aws/credentials", "overwrite_sensitive_file"},

	// Data words stay data.
	{`echo "DROP TABLE is SQL" > f`, ""},
	{`printf 'DROP TABLE users;' > f.sql`, ""},
	{`grep -i "truncate table" notes`, ""},
	{`echo 'delete from logs'`, ""},
	{"dd if=a of=b", ""},
	{"dd if=in.img of=out.img bs=4M", ""},
	{`python3 -c "print('rm -rf /')"`, ""},
	{`python3 -c "import json; print(json.dumps({}))"`, ""},
	{`node -e 'console.log(1+1)'`, ""},
	{`perl -ne 'print if /x/' f`, ""},
	{`awk '{print $1}' f`, ""},
	{`awk -F, '{s+=$2} END {print s}' data.csv`, ""},
	{`echo "git reset --hard"`, ""},
	{`echo '> f'`, ""},
	{`grep -rn "shutil.rmtree" .`, ""},
	{"cat <<EOF\nrm -rf /\nEOF", ""},
	{"cat <<'EOF' > notes.md\nreboot\nEOF", ""},
	{"echo 'rm -rf /' > notes.txt", ""},
	{"git status", ""},
	{"git log --oneline -5", ""},
	{"git checkout -b feature", ""},
	{"git checkout main", ""},
	{"git restore --staged .", ""},
	{"git clean -n", ""},
	{"git branch -d merged", ""},
	{"git stash", ""},
	{"git stash pop", ""},
	{"git reset HEAD file", ""},
	{"git reset --soft HEAD~1", ""},
	{"git push -u origin feature", ""},
	{"git fetch --prune", ""},
	{"docker ps", ""},
	{"docker run --rm alpine echo hi", ""},
	{"docker rm web", ""},
	{"docker compose up -d", ""},
	{"kill %1", ""},
	{"chmod -R u+w dir", ""},
	{"chown me file", ""},
	{"sed -i 's/a/b/' f", ""},
	{"sed -n '1,5p' f", ""},
	{"ln -s ../lib lib", ""},
	{"cp a b", ""},
	{"cp /dev/null", ""},
	{"tee out.log", ""},
	{"echo hi | tee out.log", ""},
	{"while IFS= read -r line; do echo \"$line\"; done < f", ""},
	{"for f in *.go; do gofmt -l \"$f\"; done", ""},
	{"X=1; echo $X", ""},
	{"export PATH=$PATH:/usr/local/go/bin", ""},
	{"cd /tmp && ls", ""},
	{"cd build && rm -rf *", "recursive_delete"},
	{"cd /tmp && rm -rf *", "recursive_delete"},
	{"rm -rf $DIR/", "recursive_delete"},
	{"go build ./... && go test ./...", ""},
	{"make -j8 2>&1 | tee build.log", ""},
	{"ps aux | grep node", ""},
	{"pgrep node", ""},
	{"find . -name '*.log' -mtime +7 -print", ""},
	{"find /tmp -name '*.tmp' -delete", "find_delete"},
	{"find . -exec grep -l x {} +", ""},
	{"ls | xargs wc -l", ""},
	{"echo $(date)", ""},
	{"echo `whoami`", ""},
	{"sqlite3 db 'SELECT 1'", ""},
	{"psql -c 'SELECT * FROM t WHERE id=1'", ""},
	{"mysql -e 'DELETE FROM t WHERE id=1'", ""},
	{"systemctl status nginx", ""},
	{"systemctl list-units", ""},
	{"journalctl -u nginx", ""},
	{"curl -s https://example.com | head", ""},
	{"python3 script.py", ""},
	{"python3 -m http.server", ""},
	{"node server.js", ""},
	{"bash script.sh", ""},
	{"sh -c 'ls -la'", ""},
	{"bash -c 'echo hi'", ""},
	{"echo ls | cat", ""},
	{"cat <<EOF | wc -l\na\nb\nEOF", ""},
	{"tar xzf a.tgz -C out", ""},
	{"unzip a.zip", ""},
	{"echo hello > /tmp/x", ""},
	{"ls -la ~/.ssh", ""},
	{"cat ~/.aws/config", ""},
	{"cp ~/.ssh/id_ed25519.pub /tmp/key.pub", ""},
	{"kubectl get pods", ""},
	{"echo 'ｒｍ -rf /'", ""},
	{"rm -i file", ""},
	{"echo > /dev/null", ""},
	{": > /dev/null", ""},
}

func TestParsedVerdicts(t *testing.T) {
	for _, tc := range parsedCases {
		t.Run(tc.cmd, func(t *testing.T) { wantVerdict(t, tc.cmd, tc.key) })
	}
}

// A command the shell cannot parse is refused, whatever it holds: what
// it runs cannot be known, and a shell runs the lines before the error.
// The findings still name what the text looks like it runs.
func TestUnparsableCommandsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		also string
	}{
		{"echo 'unterminated", ""},
		{"foo ( bar", ""},
		{"rm -rf / )", "delete_root"},
		{"curl x | sh (", "pipe_remote_to_shell"},
		{"reboot\necho \"unterminated", "shutdown"},
		{"cat <<EOF\nno end", ""},
		{"sh -c \"echo 'x\"", ""},
		{"su -c 'ls; echo \"x'", ""},
		{"echo $(ls", ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			got := Check(tc.cmd)
			if len(got) == 0 || got[0].Key != "unparsed_command" || !got[0].Hardline {
				t.Fatalf("not refused: %+v", got)
			}
			if tc.also != "" && !slices.ContainsFunc(got, func(f Finding) bool { return f.Key == tc.also }) {
				t.Errorf("findings %+v lack %q", got, tc.also)
			}
		})
	}
}

// Text that is only guessed to be a command (decoded data, a string in
// interpreter code) is looked at, not refused, when it does not parse.
func TestUnparsableDataIsNotRefused(t *testing.T) {
	for _, cmd := range []string{
		`echo Iicn | base64 -d`, // decodes to "'' (an open quote) and is not run
		`python3 -c 'import os; os.system("echo \"unterminated")'`,
	} {
		for _, f := range Check(cmd) {
			if f.Hardline {
				t.Errorf("%q: refused %+v", cmd, f)
			}
		}
	}
}

func BenchmarkCheckTypical(b *testing.B) {
	for b.Loop() {
		Check("go test ./... 2>&1 | tail -20")
	}
}

func BenchmarkCheck10KB(b *testing.B) {
	cmd := strings.Repeat(`echo "line of text $HOME" | grep -v x && ls -la dir; `, 10240/52)
	for b.Loop() {
		Check(cmd)
	}
}
