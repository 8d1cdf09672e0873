package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ordinaryDevices are the device nodes a command may open besides its
// own pseudo-terminals; every other one (disks, consoles, virtual
// terminals, the host's pseudo-terminals) lies on a nodev mount in the
// command's namespace (readOnlyTree) and does not open.
var ordinaryDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// ownPTYs mounts a devpts instance of the command's own over /dev/pts and
// its ptmx over /dev/ptmx: a command can make pseudo-terminals (script,
// expect, ssh -t) but sees none of the host's, the terminal hermes runs
// in among them.
func ownPTYs() error {
	if st, err := os.Stat("/dev/pts"); err != nil || !st.IsDir() {
		return nil
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount pseudo-terminals of the command's own on /dev/pts: %w", err)
	}
	if _, err := os.Lstat("/dev/ptmx"); err != nil {
		return nil
	}
	if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind /dev/pts/ptmx over /dev/ptmx: %w", err)
	}
	return nil
}
