package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/hermes-go/hermes/backend/ssh/sshtest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The model works on a remote host over SSH: an unknown host is refused
// with its fingerprint and the command that trusts it; hermes ssh trust
// adds it; then a command runs there (the hardline list and redaction
// still apply) and read_file reads what it wrote, over SFTP.
func TestTheModelRunsACommandOverSSHAndReadsTheFileItWrote(t *testing.T) {
	hostKey, _ := sshtest.NewKey(t)
	clientKey, clientPriv := sshtest.NewKey(t)
	srv := sshtest.Start(t, hostKey, clientKey.PublicKey())
	host, port, _ := net.SplitHostPort(srv.Addr)
	remoteWork := filepath.Join(srv.Home, "work")
	os.MkdirAll(remoteWork, 0o755)

	home, work := t.TempDir(), t.TempDir() // hermes' own home and this machine's directory
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	key := filepath.Join(home, ".ssh", "id_build")
	sshtest.WriteKey(t, clientPriv, key)
	cfg := fmt.Sprintf("terminal:\n  backend: ssh\n  ssh:\n    host: %s\n    port: %s\n    user: tester\n    key: ~/.ssh/id_build\n    cwd: %s\n", host, port, remoteWork)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	fp := gossh.FingerprintSHA256(hostKey.PublicKey())
	trustCmd := "hermes ssh trust " + srv.Addr

	// Unknown host: refused, in the tool result and on stderr.
	llm1 := llmtest.NewServer(t)
	llm1.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"touch ran"}`}}}, llmtest.Reply{Text: "refused"})
	r := hermes(t, home, work, "-z", "go", "--provider", "custom", "--base-url", llm1.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(llm1.Requests()[1])
	if len(res) != 1 || !contains(res[0], fp, trustCmd) || !contains(r.stderr, fp, trustCmd) {
		t.Fatalf("refusal:\nresult %q\nstderr %s", res, r.stderr)
	}
	if len(srv.Ran()) != 0 {
		t.Fatalf("the server ran %q for an unknown host", srv.Ran())
	}

	// hermes ssh trust: shows the fingerprint, refuses another, adds it.
	r = hermes(t, home, work, "ssh", "trust", srv.Addr, "--fingerprint", "SHA256:not-this-one")
	if r.code == 0 || !strings.Contains(r.stdout, fp) {
		t.Fatalf("trust with a wrong fingerprint: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, work, "ssh", "trust", srv.Addr, "--fingerprint", fp)
	if r.code != 0 || !strings.Contains(r.stdout, fp) || !strings.Contains(r.stdout, "Added") {
		t.Fatalf("trust: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if kh, _ := os.ReadFile(filepath.Join(home, ".ssh", "known_hosts")); !strings.Contains(string(kh), "ssh-ed25519") {
		t.Fatalf("known_hosts: %q", kh)
	}

	// Trusted: the commands run there, the files are read there.
	const token = "sk-proj-Zx8kQ2mN4pR6tV8wY0aB2cD4eF6gH8jK0lM2nP4qR6sT"
	mk, _ := json.Marshal(map[string]string{"command": "mkdir -p notes && cd notes && echo remote-content > note.txt && echo " + token})
	llm2 := llmtest.NewServer(t)
	llm2.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"sudo rm -rf / --no-preserve-root"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(mk)}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"note.txt"}`}}},
		llmtest.Reply{Text: "The note says remote-content."})
	usage := filepath.Join(t.TempDir(), "usage.json")
	r = hermes(t, home, work, "-z", "write a note there and read it", "--yolo", "--provider", "custom", "--base-url", llm2.URL(), "--model", "m", "--usage-file", usage)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "The note says remote-content." {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	res = toolResults(llm2.Requests()[3])
	if len(res) != 3 {
		t.Fatalf("results %q", res)
	}
	if !strings.Contains(res[0], "BLOCKED") {
		t.Errorf("the hardline command was not refused: %q", res[0])
	}
	for _, c := range srv.Ran() {
		if strings.Contains(c, "no-preserve-root") {
			t.Errorf("the hardline command reached the server: %q", c)
		}
	}
	if !contains(res[1], "exit code: 0\n", "cwd: "+filepath.Join(remoteWork, "notes")+"\n", "REDACTED") || strings.Contains(res[1], token[10:30]) {
		t.Errorf("command result: %q", res[1])
	}
	if !strings.Contains(res[2], "1|remote-content\n") {
		t.Errorf("read_file result: %q", res[2])
	}
	if b, err := os.ReadFile(filepath.Join(remoteWork, "notes", "note.txt")); err != nil || string(b) != "remote-content\n" {
		t.Fatalf("the note on the remote side: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(work, "notes")); err == nil {
		t.Fatal("the command ran in this machine's directory")
	}
	if srv.SFTPIn.Load() == 0 {
		t.Fatal("read_file did not go over SFTP")
	}
	target := "tester@" + srv.Addr
	if !contains(r.stderr, "ssh "+target, "the local sandbox does not apply") {
		t.Errorf("stderr does not say where commands run:\n%s", r.stderr)
	}
	u := readUsage(t, usage)
	b, _ := u["backend"].(map[string]any)
	sb, _ := u["sandbox"].(map[string]any)
	if b["name"] != "ssh" || !strings.Contains(fmt.Sprint(b["status"]), target) || sb["enforced"] != "none" {
		t.Errorf("usage file: backend %v sandbox %v", b, sb)
	}

	// hermes sandbox status says it too; --backend docker wants an image.
	r = hermes(t, home, work, "sandbox", "status")
	if r.code != 0 || !contains(r.stdout, "ssh "+target+": commands run on the remote host", "host key checked", "forward_env: none") {
		t.Errorf("sandbox status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, work, "-z", "hi", "--backend", "docker", "--provider", "custom", "--base-url", llm2.URL(), "--model", "m")
	if r.code == 0 || !strings.Contains(r.stderr, "terminal.docker.image is not set") {
		t.Errorf("--backend docker: exit %d\n%s", r.code, r.stderr)
	}
}
