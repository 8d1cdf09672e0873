package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// zygote is the helper process the Runners start their commands through,
// on the hermes side: this program re-executed once, in a user and mount
// namespace of its own, which opens a lane (a thread of its own,
// restricted once) per Runner. A Runner's commands cost a fork from its
// lane, and a new Runner a thread, not the start of this program.
//
// Where signals can be kept from the helper (Landlock's signal scope and
// guardHelper's filter), one zygote serves every Runner of the process;
// elsewhere each Runner gets one of its own, so that a command can stop
// no other Runner's commands.
type zygote struct {
	cmd  *exec.Cmd
	ctl  *net.UnixConn
	pid  int
	net  bool          // lanes can have network namespaces of their own
	done chan struct{} // closed when the process has exited
	dead atomic.Bool   // killed

	mu sync.Mutex // one lane request at a time
}

var (
	sharedMu sync.Mutex
	shared   *zygote
)

// sharedZygote is the process's zygote, started (again, once it has
// exited) in the namespaces st found.
func sharedZygote(st Status) (*zygote, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil && !shared.exited() {
		return shared, nil
	}
	z, err := startZygote(namespaces(st, true))
	if err != nil {
		return nil, err
	}
	shared = z
	return z, nil
}

// shareZygote reports whether one zygote may serve every Runner: a
// command cannot signal its lane's thread.
func shareZygote(st Status) bool { return st.LandlockABI >= abiScope && guardsSignals() }

// startZygote starts the helper in ns and waits until it is ready.
func startZygote(ns nsSet) (*zygote, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox helper: socket pair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "hermes-sandbox"), os.NewFile(uintptr(fds[1]), "hermes-sandbox-helper")
	defer theirs.Close()
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	b, _ := json.Marshal(plan{Mounts: ns.mount, ServeFD: 3})
	cmd := exec.Command(helperPath, helperArg)
	cmd.Env = []string{planEnv + "=" + string(b)}
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{theirs}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	addNamespaces(cmd.SysProcAttr, nsSet{user: ns.user, mount: ns.mount})
	addNetAdmin(cmd.SysProcAttr) // a lane brings its loopback up
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	z := &zygote{cmd: cmd, ctl: c.(*net.UnixConn), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		z.ctl.Close()
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	go func() {
		cmd.Wait()
		close(z.done)
	}()
	theirs.Close()
	rep, _, err := receive(z.ctl)
	if err == nil && rep.Err != "" {
		err = errors.New(rep.Err)
	}
	if err != nil {
		z.kill()
		<-z.done
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = errors.New(msg)
		}
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	z.pid, z.net = rep.Pid, rep.Net
	return z, nil
}

// openLane asks z for a lane under pl and waits until its thread is
// restricted.
func (z *zygote) openLane(pl plan) (*helper, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox helper: socket pair: %w", err)
	}
	for _, fd := range fds {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, socketBuffer)
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, socketBuffer)
	}
	ours := os.NewFile(uintptr(fds[0]), "hermes-sandbox-lane")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	h := &helper{z: z, conn: c.(*net.UnixConn)}
	b, err := json.Marshal(pl)
	if err != nil {
		unix.Close(fds[1])
		h.conn.Close()
		return nil, fmt.Errorf("sandbox helper: encode plan: %w", err)
	}
	z.mu.Lock()
	_, _, err = z.ctl.WriteMsgUnix(b, unix.UnixRights(fds[1]), nil)
	z.mu.Unlock()
	unix.Close(fds[1])
	if err != nil {
		// The zygote does not take requests any more: the next Runner
		// starts another.
		z.kill()
		h.conn.Close()
		return nil, fmt.Errorf("sandbox helper: open a lane: %w", err)
	}
	rep, _, err := h.receive()
	if err == nil && rep.Err != "" {
		err = errors.New(rep.Err)
	}
	if err != nil {
		h.kill()
		return nil, fmt.Errorf("sandbox helper: %w", err)
	}
	h.tid = rep.Tid
	return h, nil
}

// exited reports whether the zygote's process has exited.
func (z *zygote) exited() bool {
	if z.dead.Load() {
		return true
	}
	select {
	case <-z.done:
		return true
	default:
		return false
	}
}

// close asks the zygote to exit (its control socket closes).
func (z *zygote) close() { z.ctl.Close() }

// kill ends the zygote, and every lane with it, at once.
func (z *zygote) kill() {
	z.dead.Store(true)
	z.ctl.Close()
	z.cmd.Process.Kill()
}

// stopped reports whether the zygote's process is stopped (by a signal
// from outside hermes' sandbox, or a tracer).
func (z *zygote) stopped() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", z.cmd.Process.Pid))
	if err != nil {
		return false
	}
	// The state follows the command name, which ends with the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't')
}

// limitedBuffer keeps the first 4 KiB written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p[:min(len(p), 4096-len(b.buf))]...)
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
