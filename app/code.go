package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/code"
)

// codeTool is the conversation's execute_code: its scripts run as its
// workspace's terminal commands run (sandbox, working directory,
// environment without secrets) and call the tools the conversation
// offers, from reg and its agent-level tools, through the executor that
// runs the script.
func (c *Conversation) codeTool(reg *tool.Registry, agentTools []tool.Tool) *code.Tool {
	cfg := c.rt.cfg.Code
	var unavailable error
	if _, ok := c.ws.be.(backend.Programs); !ok {
		unavailable = fmt.Errorf("execute_code: not available on the %s backend: scripts run on this machine, while this conversation's commands and files are on the %[1]s backend's host; run python3 there with the terminal tool instead", c.ws.be.Name())
	}
	return code.New(code.Options{
		Unavailable:  unavailable,
		Python:       cfg.Python,
		Timeout:      config.Seconds(cfg.Timeout),
		MaxToolCalls: cfg.MaxToolCalls,
		MaxStdout:    cfg.MaxStdout,
		MaxStderr:    cfg.MaxStderr,
		Start:        c.ws.term.StartProgram,
		Workdir:      c.ws.term.Workdir,
		SpillDir:     filepath.Join(os.TempDir(), "hermes-tool-output"),
		Tools: func() []tool.Tool {
			tools, _ := reg.Available()
			return append(tools, agentTools...)
		},
	})
}
