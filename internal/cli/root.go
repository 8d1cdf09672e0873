package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Version is the hermes version, set at build time with -ldflags "-X".
var Version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitError carries an exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// env is what a command reads from its surroundings, so tests can run the
// CLI in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// warn prints a warning for the user on stderr; hermes goes on.
func (e *env) warn(v any) { fmt.Fprintln(e.stderr, "hermes: warning:", v) }

// Main runs the hermes command line and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv})
}

// run runs the command line in e and returns the exit status: 0 when the
// command did what it was asked (for a prompt: the turn completed), 1
// when it failed, 2 for a usage or setup problem (flags, config.yaml, no
// provider), 130 when interrupted.
func run(args []string, e *env) int {
	root := newRoot(e)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(e.stderr, "hermes:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(e.stderr, "hermes:", err)
	return exitUsage
}

// promptFlag is the prompt a -z or -q flag names: its value, or standard
// input for "-". An empty prompt is a usage error, never a chat.
func promptFlag(flag, value string, stdin io.Reader) (string, error) {
	prompt := value
	if value == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", &exitError{code: exitFailed, err: fmt.Errorf("%s -: reading standard input: %w", flag, err)}
		}
		prompt = strings.TrimRight(string(b), "\r\n")
		if strings.TrimSpace(prompt) == "" {
			return "", &exitError{code: exitUsage, err: fmt.Errorf("%s -: standard input held no prompt", flag)}
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", &exitError{code: exitUsage, err: fmt.Errorf(`%s needs a prompt: %s "question", or %s - to read it from standard input (hermes chat starts a chat)`, flag, flag, flag)}
	}
	return prompt, nil
}

func newRoot(e *env) *cobra.Command {
	f := &runFlags{}
	var version bool
	root := &cobra.Command{
		Use:   "hermes",
		Short: "Hermes, the agent loop in one static binary",
		Long: "Hermes runs an AI agent against any OpenAI-compatible, OpenAI Responses or Anthropic endpoint.\n\n" +
			"  hermes -z \"question\"          one-shot: print only the final answer\n" +
			"  hermes chat                   interactive chat\n" +
			"  hermes chat -q \"...\" --oneshot one-shot with progress on stderr",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if version {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "hermes", Version)
				return err
			}
			if !cmd.Flags().Changed("oneshot-prompt") {
				return runInteractive(cmd.Context(), e, f)
			}
			prompt, err := promptFlag("-z", f.prompt, e.stdin)
			if err != nil {
				return err
			}
			return runOneShot(cmd.Context(), e, f, prompt, false)
		},
	}
	// --version is ours, not cobra's: cobra prints "hermes version X" or
	// goes through a template, and text/template's reflective method
	// calls stop the linker from dropping any exported method, which
	// doubles the binary (the SDKs' unused services stay in).
	root.Flags().BoolVarP(&version, "version", "v", false, "print the version (also -V)")
	root.Flags().BoolVarP(&version, "V", "V", false, "print the version")
	_ = root.Flags().MarkHidden("V")
	root.Flags().StringVarP(&f.prompt, "oneshot-prompt", "z", "", "run one prompt and print only the final answer (-: read it from standard input)")
	addRunFlags(root.Flags(), f)
	root.AddCommand(newChatCmd(e, f), newSessionsCmd(e, f), newApprovalsCmd(e), newSandboxCmd(e), newCheckpointsCmd(e))
	root.AddCommand(newSSHCmd(e))
	root.AddCommand(newServeCmd(e), newGatewayCmd(e), newPairingCmd(e), newACPCmd(e))
	root.AddCommand(newMCPCmd(e), newSkillsCmd(e))
	root.AddCommand(newBatchCmd(e), newPromptSizeCmd(e, f))
	root.AddCommand(newCronCmd(e))
	return root
}
