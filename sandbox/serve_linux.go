package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// request asks a serving helper to start one command. Its descriptors
// travel with it (SCM_RIGHTS): standard input, output and error, then
// the extra files.
type request struct {
	Path string
	Args []string
	Env  []string
	Dir  string
	// Proxy asks for a proxy listener of the command's own, in the
	// helper's network namespace (allowlist mode).
	Proxy bool `json:",omitempty"`
}

// reply answers a request (or, first of all, says the helper is ready):
// the command's pid, or why it did not start. A proxy listener travels
// with it.
type reply struct {
	Pid int `json:",omitempty"`
	// Tid is, in a lane's first reply, its thread's id: hermes moves the
	// thread into a command's process group before asking for the command.
	Tid int `json:",omitempty"`
	// Net: the zygote's lanes can have network namespaces of their own.
	Net      bool   `json:",omitempty"`
	Err      string `json:",omitempty"`
	NotFound bool   `json:",omitempty"`
}

// Limits of one request: its size (the socket's own limit is lower, see
// runner) and its descriptors.
const (
	maxRequest = 1 << 20
	maxFiles   = 64
)

// laneFiles is how many descriptors a lane request carries: the lane's
// socket.
const laneFiles = 1

// serveZygote is the helper of this process's Runners (see zygote): its
// main thread makes the mounts private, says it is ready (and whether a
// lane can have a network namespace of its own) on pl.ServeFD, then opens
// a lane for each plan hermes sends with a socket, until hermes closes
// the control socket. The main thread stays unrestricted: no Landlock
// domain, so no command can signal the helper's process. The helper is
// not dumpable: a command can neither trace it nor open its descriptors
// through /proc. Signals that would end or stop a Go program are caught
// and dropped.
func serveZygote(pl plan) {
	ctl := pl.ServeFD
	unix.CloseOnExec(ctl)
	fail := func(msg string) {
		sendReply(ctl, reply{Err: msg}, -1)
		helperFail(exitCannotRun, msg)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fail("not dumpable: " + err.Error())
	}
	// Caught, not ignored: an ignored signal would stay ignored in every
	// command.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT,
		syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for range sigs {
		}
	}()
	if pl.Mounts {
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			fail("make mounts private: " + err.Error())
		}
	}
	if err := sendReply(ctl, reply{Pid: os.Getpid(), Net: laneNetworkWorks()}, -1); err != nil {
		helperFail(exitCannotRun, "answer hermes: "+err.Error())
	}
	var msg message
	for {
		n, fds, err := msg.receive(ctl)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(0) // hermes closed its end, or is gone
		}
		var lp plan
		if err := json.Unmarshal(msg.buf[:n], &lp); err != nil || len(fds) != laneFiles {
			closeAll(fds) // hermes reads EOF on the lane's socket
			continue
		}
		go lane(lp, fds[0])
	}
}

// laneNetworkWorks reports whether a thread of this process can get a
// network namespace of its own, trying it on a thread that then ends.
func laneNetworkWorks() bool {
	ok := make(chan bool)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		ok <- unix.Unshare(unix.CLONE_NEWNET) == nil
	}()
	return <-ok
}

// lane serves one Runner on sock from a thread of its own, which it
// never gives back to the runtime (it ends with the lane): the thread
// takes a mount namespace (and, when the network is off or an allowlist,
// a network namespace) of its own, mounts the plan's view of the file
// system, restricts itself (Landlock, seccomp, capabilities) and starts
// each command it is asked for, which inherits exactly that thread's
// namespaces and restrictions. Each command is started in a session of
// its own, and as a child of hermes (CLONE_PARENT), which waits for it,
// kills its process group and reads its exit status as for any child of
// its own. A lane that cannot be set up says why and ends: no command
// runs with less than its plan.
func lane(pl plan, sock int) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread must stay out of the commands' Landlock domain;
		// keep it here, idle, and restrict another.
		go lane(pl, sock)
		select {}
	}
	defer unix.Close(sock)
	if err := enterLane(pl); err != nil {
		sendReply(sock, reply{Err: err.Error()}, -1)
		return
	}
	if err := sendReply(sock, reply{Pid: os.Getpid(), Tid: unix.Gettid()}, -1); err != nil {
		return
	}
	var msg message
	for {
		n, fds, err := msg.receive(sock)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return // hermes closed the Runner
		}
		var req request
		if err := json.Unmarshal(msg.buf[:n], &req); err != nil || len(fds) < 3 {
			closeAll(fds)
			sendReply(sock, reply{Err: fmt.Sprintf("a malformed request (%d descriptors): %v", len(fds), err)}, -1)
			continue
		}
		ln := -1
		if req.Proxy && pl.Proxied {
			var port int
			if ln, port, err = listenLoopback(); err != nil {
				closeAll(fds)
				sendReply(sock, reply{Err: "network allowlist: listen on loopback: " + err.Error()}, -1)
				continue
			}
			req.Env = withProxyEnv(req.Env, port)
		}
		rep := forkCommand(req, fds)
		closeAll(fds)
		if rep.Pid == 0 && ln >= 0 {
			unix.Close(ln)
			ln = -1
		}
		err = sendReply(sock, rep, ln)
		if ln >= 0 {
			unix.Close(ln)
		}
		if err != nil {
			return
		}
	}
}

// enterLane gives the calling thread the namespaces, mounts and
// restrictions of pl.
func enterLane(pl plan) error {
	var flags int
	if pl.Mounts {
		flags |= unix.CLONE_NEWNS | unix.CLONE_FS
	}
	if pl.NetNS {
		flags |= unix.CLONE_NEWNET
	}
	if flags != 0 {
		if err := unix.Unshare(flags); err != nil {
			return fmt.Errorf("namespaces: %w", err)
		}
	}
	if pl.Mounts {
		if err := mountPolicy(pl.Policy, pl.Files); err != nil {
			return err
		}
	}
	if pl.Proxied {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("network allowlist: bring up loopback: %w", err)
		}
	}
	if err := restrict(pl); err != nil {
		return err
	}
	return guardHelper(os.Getpid(), unix.Gettid())
}

// forkCommand starts r's command, with fds as its descriptors, from the
// lane's thread. What can
// be checked before the fork is: a command whose exec fails in the child
// would be left to hermes as a child it does not know of.
func forkCommand(r request, fds []int) reply {
	if err := unix.Access(r.Path, unix.X_OK); err != nil {
		return reply{Err: fmt.Sprintf("%s: %v", r.Path, err), NotFound: errors.Is(err, unix.ENOENT)}
	}
	if st, err := os.Stat(r.Dir); err != nil {
		return reply{Err: fmt.Sprintf("working directory: %v", err)}
	} else if !st.IsDir() {
		return reply{Err: fmt.Sprintf("working directory %s is not a directory", r.Dir)}
	}
	files := make([]uintptr, len(fds))
	for i, fd := range fds {
		files[i] = uintptr(fd)
	}
	pid, err := syscall.ForkExec(r.Path, r.Args, &syscall.ProcAttr{
		Dir: r.Dir, Env: r.Env, Files: files,
		Sys: &syscall.SysProcAttr{Setsid: true, Cloneflags: unix.CLONE_PARENT},
	})
	if err != nil {
		return reply{Err: fmt.Sprintf("%s: %v", r.Path, err), NotFound: errors.Is(err, unix.ENOENT)}
	}
	return reply{Pid: pid}
}

// message is the buffers a lane or the zygote reads its requests into:
// the bytes, as long as the longest request so far (most are a few KiB,
// the limit is maxRequest), and the descriptors.
type message struct {
	buf, oob []byte
}

// receive reads one request from sock into m: its length and its
// descriptors.
func (m *message) receive(sock int) (int, []int, error) {
	if m.oob == nil {
		m.buf, m.oob = make([]byte, 16<<10), make([]byte, unix.CmsgSpace(maxFiles*4))
	}
	// The length first, without taking the message (a sequenced packet
	// longer than the buffer would be cut).
	n, _, _, _, err := unix.Recvmsg(sock, nil, nil, unix.MSG_PEEK|unix.MSG_TRUNC)
	if err != nil || n == 0 {
		return n, nil, err
	}
	if n > len(m.buf) {
		m.buf = make([]byte, min(n, maxRequest))
	}
	n, oobn, _, _, err := unix.Recvmsg(sock, m.buf, m.oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return n, nil, err
	}
	return n, receivedFDs(m.oob[:oobn]), nil
}

// sendReply sends rep, with the descriptor fd unless it is negative.
func sendReply(ctl int, rep reply, fd int) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	var oob []byte
	if fd >= 0 {
		oob = unix.UnixRights(fd)
	}
	return unix.Sendmsg(ctl, b, oob, nil, 0)
}

// receivedFDs are the descriptors of a message's control data.
func receivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// withProxyEnv is env with the proxy variables (setProxyEnv's) pointing
// at port, in place of any it had.
func withProxyEnv(env []string, port int) []string {
	http := "http://127.0.0.1:" + strconv.Itoa(port)
	socks := "socks5h://127.0.0.1:" + strconv.Itoa(port)
	vars := [][2]string{
		{"HTTP_PROXY", http}, {"HTTPS_PROXY", http}, {"ALL_PROXY", socks}, {"NO_PROXY", noProxy},
		{"http_proxy", http}, {"https_proxy", http}, {"all_proxy", socks}, {"no_proxy", noProxy},
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		proxy := false
		for _, v := range vars {
			proxy = proxy || v[0] == name
		}
		if !proxy {
			out = append(out, kv)
		}
	}
	for _, v := range vars {
		out = append(out, v[0]+"="+v[1])
	}
	return out
}
