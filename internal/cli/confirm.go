package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether r is a terminal a person can answer on.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// confirm puts a yes/no question to the user on stderr before something
// that cannot be undone. Without a terminal to ask on the answer is no,
// and the error says to pass --yes. Only "y" or "yes" is a yes.
func confirm(e *env, what, question string) error {
	if !isTerminal(e.stdin) {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s needs confirmation and standard input is not a terminal to ask on; pass --yes to go ahead (nothing was deleted)", what)}
	}
	fmt.Fprintf(e.stderr, "%s [y/N] ", question)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &exitError{code: exitFailed, err: fmt.Errorf("%s: not confirmed, nothing was deleted", what)}
}
