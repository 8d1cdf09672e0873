package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// startProcess starts a sleep whose command line is argv0's, standing in
// for a gateway process (or another program holding a gateway's old pid).
func startProcess(t *testing.T, argv0 string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	cmd.Args[0] = argv0
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func platformsOf(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, p := range m["platforms"].([]any) {
		out = append(out, p.(map[string]any))
	}
	return out
}

func TestGatewayStatus(t *testing.T) {
	home := t.TempDir()
	env := []string{"TELEGRAM_BOT_TOKEN=1:t", "SLACK_BOT_TOKEN=xoxb-1", "SLACK_APP_TOKEN=xapp-1"}

	// Nothing ever ran, nothing enabled.
	r := hermes(t, home, home, "gateway", "status")
	if r.code != 1 || !contains(r.stdout, "gateway not running: no gateway has run", "no chat platform is enabled") {
		t.Fatalf("nothing: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	m, r := gatewayStatusJSON(t, nil, home)
	if r.code != 1 || m["running"] != false || m["pid"] != 0.0 || len(platformsOf(m)) != 0 {
		t.Fatalf("nothing, json: exit %d %v", r.code, m)
	}
	// Enabled by the environment, not running.
	m, r = gatewayStatusJSON(t, env, home)
	ps := platformsOf(m)
	if r.code != 1 || m["running"] != false || len(ps) != 2 || ps[0]["platform"] != "telegram" || ps[1]["platform"] != "slack" ||
		ps[0]["enabled"] != true || ps[0]["connected"] != false || ps[0]["detail"] != "gateway not running" {
		t.Fatalf("not running: exit %d %v", r.code, m)
	}

	// A running gateway: its process alive, one platform refused.
	gw := startProcess(t, "hermes-gateway")
	start := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	st := gateway.StatusFile{PID: gw.Process.Pid, StartedAt: start}
	st.Apply(gateway.State{Platform: "telegram", Connected: true, Detail: "@hermes_bot", Since: start}, start)
	st.Apply(gateway.State{Platform: "slack", Detail: "invalid_auth", Since: start}, start)
	if err := gateway.WriteStatus(gateway.StatusPath(home), st); err != nil {
		t.Fatal(err)
	}
	r = hermesEnv(t, env, home, home, "gateway", "status")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 1 || len(lines) != 3 || !strings.HasPrefix(lines[0], "gateway running (pid "+strconv.Itoa(gw.Process.Pid)+", started ") ||
		lines[1] != "telegram  connected      @hermes_bot" || lines[2] != "slack     not connected  invalid_auth" {
		t.Fatalf("one refused: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	m, r = gatewayStatusJSON(t, env, home)
	ps = platformsOf(m)
	if r.code != 1 || m["running"] != true || m["pid"] != float64(gw.Process.Pid) || m["started_at"] != start.Format(time.RFC3339) ||
		len(ps) != 2 || ps[1]["connected"] != false || ps[1]["detail"] != "invalid_auth" || ps[0]["since"] != start.Format(time.RFC3339) {
		t.Fatalf("one refused, json: exit %d %v", r.code, m)
	}

	// Every platform connected: exit 0.
	st.Apply(gateway.State{Platform: "slack", Connected: true, Detail: "hermes in T123", Since: start}, start)
	gateway.WriteStatus(gateway.StatusPath(home), st)
	if r := hermesEnv(t, env, home, home, "gateway", "status"); r.code != 0 || !strings.Contains(r.stdout, "slack     connected  hermes in T123") {
		t.Fatalf("all connected: exit %d stdout %q", r.code, r.stdout)
	}
	// A platform enabled since the gateway started is not connected.
	m, r = gatewayStatusJSON(t, append(env, "DISCORD_BOT_TOKEN=d"), home)
	ps = platformsOf(m)
	if r.code != 1 || len(ps) != 3 || ps[2]["platform"] != "discord" || !strings.Contains(ps[2]["detail"].(string), "after the gateway started") {
		t.Fatalf("discord enabled later: exit %d %v", r.code, m)
	}

	// The pid now belongs to another program: not running.
	other := startProcess(t, "sleep")
	st.PID = other.Process.Pid
	gateway.WriteStatus(gateway.StatusPath(home), st)
	m, r = gatewayStatusJSON(t, env, home)
	if r.code != 1 || m["running"] != false || !strings.Contains(m["detail"].(string), "now another program") || platformsOf(m)[0]["detail"] != "gateway not running" {
		t.Fatalf("pid reused: exit %d %v", r.code, m)
	}
	// The gateway was killed: its status file stays, it is not running.
	st.PID = gw.Process.Pid
	gateway.WriteStatus(gateway.StatusPath(home), st)
	gw.Process.Kill()
	gw.Wait()
	r = hermesEnv(t, env, home, home, "gateway", "status")
	if r.code != 1 || !contains(r.stdout, "gateway not running: the gateway (pid "+strconv.Itoa(st.PID)+") has exited",
		"telegram  not connected  gateway not running", "slack     not connected  gateway not running") {
		t.Fatalf("killed: exit %d stdout %q", r.code, r.stdout)
	}
}
