package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// liveProxies counts the command proxies being served or awaited.
var liveProxies atomic.Int32

// attachProxy readies cmd for allowlist mode: one end of a socket pair
// goes to the helper as an extra file (pl.NetProxyFD); on the other,
// hermes waits for the listener the helper makes in the command's network
// namespace and serves the proxy on it until the command exits. undo
// drops it all when cmd will not start after all. A cmd that never
// starts releases the goroutine when it is garbage collected (its files
// close then).
func attachProxy(cmd *exec.Cmd, pl *plan) (undo func(), err error) {
	srv, err := pl.Policy.proxyServer()
	if err != nil {
		return nil, err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: network proxy: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "hermes-netproxy"), os.NewFile(uintptr(fds[1]), "hermes-netproxy-helper")
	cmd.ExtraFiles = append(cmd.ExtraFiles, theirs)
	pl.NetProxyFD = 2 + len(cmd.ExtraFiles)
	liveProxies.Add(1)
	go func() {
		defer liveProxies.Add(-1)
		serveCommandProxy(ours, srv.Serve)
	}()
	return func() {
		cmd.ExtraFiles = cmd.ExtraFiles[:len(cmd.ExtraFiles)-1]
		theirs.Close()
	}, nil
}

// serveCommandProxy receives the helper's listener and the command's
// pidfd on ours, then serves until the command exits.
func serveCommandProxy(ours *os.File, serve func(context.Context, net.Listener) error) {
	ln, exited, err := receiveListener(ours)
	ours.Close()
	if err != nil {
		return // the helper stopped before (and said why), or never started
	}
	serveUntilExit(ln, exited, serve)
}

// serveUntilExit serves the proxy on ln until the process behind the
// pidfd exited has exited.
func serveUntilExit(ln net.Listener, exited *os.File, serve func(context.Context, net.Listener) error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer exited.Close()
		waitExit(exited)
	}()
	serveUntil(ln, done, serve)
}

// serveUntil serves the proxy on ln until done is closed.
func serveUntil(ln net.Listener, done <-chan struct{}, serve func(context.Context, net.Listener) error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-done
		cancel()
	}()
	if err := serve(ctx, ln); err != nil {
		// Nobody waits for this goroutine; the command sees its proxy
		// refuse connections from now on.
		slog.Warn("sandbox: a command's network proxy stopped: " + err.Error())
	}
}

// receiveListener reads the helper's message: the listener and a pidfd.
func receiveListener(f *os.File) (net.Listener, *os.File, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, nil, fmt.Errorf("not a unix socket: %T", c)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(2*4))
	_, oobn, _, _, err := uc.ReadMsgUnix(buf, oob) // MSG_CMSG_CLOEXEC
	if err != nil {
		return nil, nil, err
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		fds, _ = unix.ParseUnixRights(&msgs[0])
	}
	if len(fds) != 2 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, nil, errors.New("the sandbox helper sent no listener")
	}
	lf := os.NewFile(uintptr(fds[0]), "netproxy-listener")
	ln, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, err
	}
	return ln, os.NewFile(uintptr(fds[1]), "command-pidfd"), nil
}

// waitExit returns when the process behind pidfd has exited.
func waitExit(pidfd *os.File) {
	rc, err := pidfd.SyscallConn()
	if err != nil {
		return
	}
	// poll(2) on this thread, asking between waits whether the process
	// still exists: a pidfd first polled after its process was reaped
	// may never report readable (seen on Linux 6.18).
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, 100)
			if n > 0 || err != nil && !errors.Is(err, syscall.EINTR) {
				return
			}
			if err := unix.PidfdSendSignal(int(fd), 0, nil, 0); errors.Is(err, unix.ESRCH) {
				return
			}
		}
	})
}

// addNetAdmin lets a helper that holds only the ambient capabilities of
// an unprivileged user namespace bring loopback up in its network
// namespace; the helper drops it with the rest before the command runs.
func addNetAdmin(attr *syscall.SysProcAttr) {
	if attr.Cloneflags&syscall.CLONE_NEWUSER != 0 && os.Getuid() != 0 {
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
	}
}
