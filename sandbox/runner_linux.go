package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	// errHelperStopped: the helper did not answer; the command did not run.
	errHelperStopped = errors.New("the sandbox helper stopped")
	// errTooLarge: the request does not fit the helper's socket.
	errTooLarge = errors.New("request too large for the sandbox helper")
)

// helperTimeout bounds the wait for the helper's answer: a helper that
// was stopped (a command can send its restricted thread SIGSTOP) must not
// hang the command forever.
var helperTimeout = 10 * time.Second

// socketBuffer is the send and receive buffer asked for the helper's
// socket; the kernel caps it (net.core.wmem_max) and a larger request
// goes through Wrap.
const socketBuffer = maxRequest

// helper is a Runner's lane in a zygote, on the hermes side.
type helper struct {
	z    *zygote
	own  bool // z serves this lane alone: it ends with it
	conn *net.UnixConn
	tid  int         // the lane's thread
	dead atomic.Bool // killed, or found stopped

	mu sync.Mutex // one request at a time
}

// startHelper opens a lane for p (namespaces as Probe found them) in the
// shared zygote, or in one of its own where it cannot be shared, and
// waits until the lane has restricted itself.
func startHelper(p Policy, st Status) (*helper, error) {
	pl := plan{Policy: p, Mounts: st.MountNamespace, Landlock: st.LandlockABI}
	pl.Policy.NetworkAsk = nil
	pl.NetNS = st.NetNamespace && !p.Network.on()
	pl.Proxied = p.Network == NetworkAllowlist && st.NetNamespace
	own := !shareZygote(st)
	var z *zygote
	var err error
	if own {
		z, err = startZygote(namespaces(st, true))
	} else {
		z, err = sharedZygote(st)
	}
	if err != nil {
		return nil, err
	}
	h, err := z.openLane(pl)
	if err != nil {
		if own {
			z.kill()
		}
		return nil, err
	}
	h.own = own
	return h, nil
}

// exited reports whether the lane is gone: killed, or its zygote exited.
func (h *helper) exited() bool { return h.dead.Load() || h.z.exited() }

// close ends the lane (its socket closes), and a zygote of its own.
func (h *helper) close() {
	h.conn.Close()
	if h.own {
		h.z.close()
	}
}

// kill ends the lane at once, and the zygote when it is the lane's own
// or stopped (a stopped zygote serves no lane).
func (h *helper) kill() {
	h.dead.Store(true)
	h.conn.Close()
	if h.own || h.z.stopped() {
		h.z.kill()
	}
}

// receive reads one reply and the descriptor that came with it, if any.
func (h *helper) receive() (reply, *os.File, error) { return receive(h.conn) }

// receive reads one reply from conn, and the descriptor that came with
// it, if any.
func receive(conn *net.UnixConn) (reply, *os.File, error) {
	conn.SetReadDeadline(time.Now().Add(helperTimeout))
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err != nil {
		return reply{}, nil, fmt.Errorf("%w: %v", errHelperStopped, err)
	}
	var f *os.File
	fds := receivedFDs(oob[:oobn])
	if len(fds) > 0 {
		f = os.NewFile(uintptr(fds[0]), "sandbox-helper-fd")
		closeAll(fds[1:])
	}
	var rep reply
	if err := json.Unmarshal(buf[:n], &rep); err != nil {
		if f != nil {
			f.Close()
		}
		return reply{}, nil, fmt.Errorf("%w: a malformed answer: %v", errHelperStopped, err)
	}
	return rep, f, nil
}

// request sends req with files and returns the pid of the started
// command, and its proxy listener when req.Proxy. With a group g the
// lane's thread forks the command inside it (see procGroup).
func (h *helper) request(req request, files []*os.File, g *procGroup) (int, *os.File, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return 0, nil, fmt.Errorf("sandbox helper: encode request: %w", err)
	}
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(b) > maxRequest || len(fds) > maxFiles {
		return 0, nil, errTooLarge
	}
	if g != nil {
		if err := g.enterThread(h.tid); err != nil {
			return 0, nil, fmt.Errorf("sandbox: move the helper into the command's process group: %w", err)
		}
		defer g.leaveThread(h.tid)
	}
	h.conn.SetWriteDeadline(time.Now().Add(helperTimeout))
	if _, _, err := h.conn.WriteMsgUnix(b, unix.UnixRights(fds...), nil); err != nil {
		if errors.Is(err, unix.EMSGSIZE) || errors.Is(err, unix.ENOBUFS) {
			return 0, nil, errTooLarge
		}
		return 0, nil, fmt.Errorf("%w: %v", errHelperStopped, err)
	}
	rep, ln, err := h.receive()
	if err != nil {
		return 0, nil, err
	}
	if rep.Pid <= 0 {
		if ln != nil {
			ln.Close()
		}
		if rep.NotFound {
			return 0, nil, fmt.Errorf("sandbox: %s: %w", rep.Err, exec.ErrNotFound)
		}
		return 0, nil, fmt.Errorf("sandbox: %s", rep.Err)
	}
	return rep.Pid, ln, nil
}

// start starts cmd through h, as exec.Cmd.Start would, and returns its
// wait (see Runner.Start).
func (h *helper) start(ctx context.Context, cmd *exec.Cmd, p Policy, endWith bool) (func() error, error) {
	if cmd.Process != nil {
		return nil, errors.New("sandbox: the command has started already")
	}
	if err := noTerminal(cmd); err != nil {
		return nil, err
	}
	if a := cmd.SysProcAttr; a != nil {
		attr := *a
		if err := newSession(&attr); err != nil {
			return nil, err
		}
	}
	s, err := newStreams(cmd)
	if err != nil {
		return nil, err
	}
	dir := cmd.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			s.closeAll()
			return nil, fmt.Errorf("sandbox: working directory: %w", err)
		}
	}
	proxied := p.Network == NetworkAllowlist && Probe().NetNamespace
	var srv proxyServe
	if proxied {
		server, err := p.proxyServer()
		if err != nil {
			s.closeAll()
			return nil, err
		}
		srv = server.Serve
	}
	var g *procGroup
	if Probe().ProcessLimit {
		if g, err = newProcGroup(p.maxProcesses()); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	req := request{Path: cmd.Path, Args: cmd.Args, Env: cmd.Environ(), Dir: dir, Proxy: proxied}
	pid, ln, err := h.request(req, append(s.child, cmd.ExtraFiles...), g)
	s.closeChild()
	if err != nil {
		s.closeParent()
		if g != nil {
			g.release()
		}
		return nil, err
	}
	proc, err := os.FindProcess(pid)
	if err != nil { // not on Linux: FindProcess always succeeds there
		s.closeParent()
		return nil, err
	}
	cmd.Process = proc
	exited := make(chan struct{})
	if ln != nil {
		serveListener(ln, exited, srv)
	}
	s.copy()
	return waiter(ctx, cmd, s, exited, g, endWith), nil
}

// proxyServe serves a command's proxy on a listener until ctx ends.
type proxyServe = func(context.Context, net.Listener) error

// serveListener serves the proxy on ln, the helper's listener in the
// command's network namespace, until exited is closed: when the wait for
// the command (a child of ours) has returned. A pidfd would not do: on
// some kernels one polled after its process was reaped never reports.
func serveListener(ln *os.File, exited <-chan struct{}, serve proxyServe) {
	defer ln.Close()
	l, err := net.FileListener(ln)
	if err != nil {
		return // the command finds no proxy, and no network
	}
	liveProxies.Add(1)
	go func() {
		defer liveProxies.Add(-1)
		serveUntil(l, exited, serve)
	}()
}

// streams are a command's standard streams: child holds the descriptors
// it gets, parent the ends of pipes hermes copies through.
type streams struct {
	child      []*os.File
	ownChild   []*os.File // opened here: closed once the command started
	parent     []*os.File // closed after the wait
	copiers    []func() error
	copyErrors chan error
}

// newStreams opens what cmd's Stdin, Stdout and Stderr need, as
// exec.Cmd.Start does: nothing for an *os.File, /dev/null for nil, a
// pipe and a copying goroutine for anything else (one pipe when Stdout
// and Stderr are the same writer).
func newStreams(cmd *exec.Cmd) (*streams, error) {
	s := &streams{child: make([]*os.File, 3)}
	fail := func(err error) (*streams, error) {
		s.closeAll()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	switch r := cmd.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return fail(err)
		}
		s.child[0] = f
		s.ownChild = append(s.ownChild, f)
	case *os.File:
		s.child[0] = r
	default:
		pr, pw, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		s.child[0] = pr
		s.ownChild = append(s.ownChild, pr)
		s.parent = append(s.parent, pw)
		s.copiers = append(s.copiers, func() error {
			_, err := io.Copy(pw, r)
			if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
				err = nil // the command stopped reading
			}
			if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
				err = cerr
			}
			return err
		})
	}
	for i, w := range []io.Writer{cmd.Stdout, cmd.Stderr} {
		if i == 1 && cmd.Stderr != nil && sameWriter(cmd.Stdout, cmd.Stderr) {
			s.child[2] = s.child[1]
			continue
		}
		switch w := w.(type) {
		case nil:
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				return fail(err)
			}
			s.child[i+1] = f
			s.ownChild = append(s.ownChild, f)
		case *os.File:
			s.child[i+1] = w
		default:
			pr, pw, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			s.child[i+1] = pw
			s.ownChild = append(s.ownChild, pw)
			s.parent = append(s.parent, pr)
			s.copiers = append(s.copiers, func() error {
				_, err := io.Copy(w, pr)
				if errors.Is(err, os.ErrClosed) {
					err = nil // closed after WaitDelay
				}
				return err
			})
		}
	}
	return s, nil
}

// sameWriter reports whether a and b are the same comparable writer.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func (s *streams) closeChild() {
	for _, f := range s.ownChild {
		f.Close()
	}
	s.ownChild = nil
}

func (s *streams) closeParent() {
	for _, f := range s.parent {
		f.Close()
	}
}

func (s *streams) closeAll() {
	s.closeChild()
	s.closeParent()
}

// copy starts the copying goroutines.
func (s *streams) copy() {
	s.copyErrors = make(chan error, len(s.copiers))
	for _, c := range s.copiers {
		go func() { s.copyErrors <- c() }()
	}
}

// waiter is cmd.Wait for a command the helper started, closing exited
// once the command has exited: ctx's end calls
// cmd.Cancel (or kills the process), and after the exit the output pipes
// get cmd.WaitDelay to close before they are closed here. With a process
// group g, ctx's end kills every process in it too, those that left the
// command's process group or session among them, and the wait removes g
// (or leaves it to a later sweep while a process the command left
// running on a normal exit lives on in it, still limited).
func waiter(ctx context.Context, cmd *exec.Cmd, s *streams, exited chan struct{}, g *procGroup, endWith bool) func() error {
	var cancelled error
	var cancelMu sync.Mutex
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
			case <-exited:
				return
			}
			err := ctx.Err()
			if cmd.Cancel != nil {
				if cerr := cmd.Cancel(); cerr != nil && !errors.Is(cerr, os.ErrProcessDone) {
					err = cerr
				}
			} else {
				cmd.Process.Kill()
			}
			// A Cancel with a WaitDelay is a grace (SIGTERM first): the
			// group is killed when it runs out.
			graceful := cmd.Cancel != nil && cmd.WaitDelay > 0
			if g != nil && !graceful {
				if kerr := g.kill(); kerr != nil {
					err = kerr
				}
			}
			cancelMu.Lock()
			cancelled = err
			cancelMu.Unlock()
			if cmd.WaitDelay > 0 {
				select {
				case <-time.After(cmd.WaitDelay):
					cmd.Process.Kill()
					if g != nil {
						g.kill()
					}
				case <-exited:
				}
			}
		}()
	}
	var once sync.Once
	var result error
	return func() error {
		once.Do(func() {
			state, err := cmd.Process.Wait()
			close(exited)
			if err == nil && !state.Success() {
				err = &exec.ExitError{ProcessState: state}
			}
			cmd.ProcessState = state
			cancelMu.Lock()
			if err == nil && cancelled != nil {
				err = cancelled
			}
			cancelMu.Unlock()
			var timeout <-chan time.Time
			if cmd.WaitDelay > 0 {
				t := time.NewTimer(cmd.WaitDelay)
				defer t.Stop()
				timeout = t.C
			}
			// What the command left holding its output dies with ctx too.
			done := ctx.Done()
			for i := 0; i < len(s.copiers); {
				select {
				case <-done:
					done = nil
					killLeft(cmd, g)
					continue
				case cerr := <-s.copyErrors:
					if err == nil {
						err = cerr
					}
				case <-timeout:
					s.closeParent()
					if err == nil {
						err = exec.ErrWaitDelay
					}
					timeout = nil
					<-s.copyErrors
				}
				i++
			}
			s.closeParent()
			if endWith || ctx.Err() != nil {
				killLeft(cmd, g)
			}
			if g != nil {
				g.release()
			}
			result = err
		})
		return result
	}
}

// killLeft kills what the command left running: every process of its
// cgroup g, or, without one, of its process group.
func killLeft(cmd *exec.Cmd, g *procGroup) {
	if g != nil {
		g.kill()
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// startWrapped starts cmd through Wrap (see Runner.Start), in a process
// group of its own where processes are limited: the helper enters it
// before it executes the command. ctx's end kills every process in the
// group (endWith: the wait's return too); the wait removes it.
func startWrapped(ctx context.Context, p Policy, cmd *exec.Cmd, files []string, endWith bool) (func() error, error) {
	st := Probe()
	if !st.ProcessLimit || st.Enforcement(p).Level == None {
		if err := p.wrapWith(cmd, st, files, nil); err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		if !endWith {
			return cmd.Wait, nil
		}
		return func() error {
			err := cmd.Wait()
			killLeft(cmd, nil)
			return err
		}, nil
	}
	g, err := newProcGroup(p.maxProcesses())
	if err != nil {
		return nil, err
	}
	procs, err := os.OpenFile(filepath.Join(g.dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		g.release()
		return nil, fmt.Errorf("sandbox: process group: %w", err)
	}
	defer procs.Close()
	if err := p.wrapWith(cmd, st, files, procs); err != nil {
		g.release()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		g.release()
		return nil, err
	}
	// A Cancel with a WaitDelay is a grace (SIGTERM first): the group is
	// killed when it runs out.
	grace := time.Duration(0)
	if cmd.Cancel != nil {
		grace = cmd.WaitDelay
	}
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, func() { g.kill() }) })
	return func() error {
		err := cmd.Wait()
		stop()
		if endWith || ctx.Err() != nil {
			g.kill()
		}
		g.release()
		return err
	}, nil
}
