package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// newSession makes the command start in a session of its own, without a
// controlling terminal: /dev/tty does not open, and the terminal hermes
// runs in is not the command's to type into (TIOCSTI) or to stop with
// job control. The session leader leads its own process group too, so
// Setpgid (which would fail after setsid) is implied.
func newSession(attr *syscall.SysProcAttr) error {
	if attr.Setctty || attr.Foreground {
		return errors.New("sandbox: a sandboxed command cannot be given a controlling terminal")
	}
	if attr.Setpgid && attr.Pgid != 0 {
		return fmt.Errorf("sandbox: a sandboxed command cannot join process group %d: it runs in a session of its own", attr.Pgid)
	}
	attr.Setpgid, attr.Setsid = false, true
	return nil
}

// noTerminal refuses a command whose standard streams or extra files
// include a terminal: through it the command would read what the user
// types and write into their screen.
func noTerminal(cmd *exec.Cmd) error {
	files := []struct {
		name string
		f    any
	}{{"standard input", cmd.Stdin}, {"standard output", cmd.Stdout}, {"standard error", cmd.Stderr}}
	for _, f := range cmd.ExtraFiles {
		files = append(files, struct {
			name string
			f    any
		}{"an extra file", f})
	}
	for _, f := range files {
		if file, ok := f.f.(*os.File); ok && file != nil && isTerminal(file) {
			return fmt.Errorf("sandbox: the command's %s is a terminal (%s); a sandboxed command must not reach one", f.name, file.Name())
		}
	}
	return nil
}

func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		tty = err == nil
	})
	return tty
}
