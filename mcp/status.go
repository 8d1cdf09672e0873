package mcp

import (
	"fmt"
	"strings"
	"time"
)

// State is where a server is.
type State string

// States of a server.
const (
	Starting State = "starting" // the first attempt is under way
	Ready    State = "ready"
	Down     State = "down" // failed to start, died or unreachable; restarts pending
	Stopped  State = "stopped"
)

// Status is what is known about one server, for hermes mcp list and the
// status line.
type Status struct {
	Name      string
	Transport string
	State     State
	// Tools is how many of its tools are offered (registered), Refused the
	// tools left out because their description looked like a prompt
	// injection.
	Tools   int
	Refused []string
	// Err is the last error (the reason it is down, when it is).
	Err string
	// Restarts counts the times it was started again after failing or
	// dying; NextTry is when the next attempt is due while it is down.
	Restarts int
	NextTry  time.Time
	Since    time.Time
}

// String is one line: "everything (stdio): ready, 14 tools".
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s, %d tool%s", s.Name, s.Transport, s.State, s.Tools, plural(s.Tools))
	if len(s.Refused) > 0 {
		fmt.Fprintf(&b, ", %d refused (%s)", len(s.Refused), strings.Join(s.Refused, ", "))
	}
	if s.Err != "" {
		fmt.Fprintf(&b, "; last error: %s", s.Err)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// StatusLine sums servers up for a status line: "" without servers,
// "MCP 3/3", or "MCP 2/3 (github down)".
func StatusLine(list []Status) string {
	if len(list) == 0 {
		return ""
	}
	ready := 0
	var other []string
	for _, s := range list {
		if s.State == Ready {
			ready++
			continue
		}
		other = append(other, fmt.Sprintf("%s %s", s.Name, s.State))
	}
	line := fmt.Sprintf("MCP %d/%d", ready, len(list))
	if len(other) > 0 {
		line += " (" + strings.Join(other, ", ") + ")"
	}
	return line
}
