package cli

import (
	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/sandbox"
)

// statusLine is the one line that says where commands run and what is
// enforced there: the sandbox's on the local backend, the backend's own
// on another (where the local sandbox does not apply, which is worth a
// warning). short says it falls short of a local sandbox.
func statusLine(be backend.Backend, st sandbox.Enforcement) (line string, short bool) {
	if be == nil || be.Name() == "local" {
		return st.String(), st.Short()
	}
	return be.Describe(), true
}

// backendReport is the usage file's "backend": where commands ran and
// what was enforced there.
type backendReport struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// reportSandbox fills the usage report's sandbox and backend: on a remote
// backend the local sandbox enforced nothing on the commands.
func reportSandbox(r *usageReport, be backend.Backend, st sandbox.Enforcement) {
	r.Sandbox = sandboxReportOf(st)
	if be == nil {
		return
	}
	line, _ := statusLine(be, st)
	r.Backend = &backendReport{Name: be.Name(), Status: line}
	if be.Name() != "local" {
		r.Sandbox.Enforced = sandbox.None.String()
		r.Sandbox.Missing = []string{"commands run on the " + be.Name() + " backend, where the local sandbox does not apply"}
	}
}
