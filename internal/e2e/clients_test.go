package e2e

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// runClient runs a real client (a node script under testdata/peers) that
// prints what it saw as one JSON object, decodes that into got, and
// returns the client's stderr for later messages. A client that fails,
// or prints no such object, fails t with its stderr and also() (the
// server's log, when there is one).
func runClient(t *testing.T, cmd *exec.Cmd, got any, also func() string) string {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", cmd.Args[1], err, stderr.String(), server(also))
	}
	if err := json.Unmarshal(stdout, got); err != nil {
		t.Fatalf("%s printed %q: %v\n%s%s", cmd.Args[1], stdout, err, stderr.String(), server(also))
	}
	return stderr.String()
}

// server is the server's log for a failure message; read only then, as
// the server may still be writing it.
func server(also func() string) string {
	if also == nil {
		return ""
	}
	return "\nserver:\n" + also()
}
