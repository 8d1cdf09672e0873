package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
	Pid      int    `json:",omitempty"`
	Err      string `json:",omitempty"`
	NotFound bool   `json:",omitempty"`
}

// Limits of one request: its size (the socket's own limit is lower, see
// runner) and its descriptors.
const (
	maxRequest = 1 << 20
	maxFiles   = 64
)

// forkJob is a request handed to the restricted thread.
type forkJob struct {
	req  request
	fds  []int
	done chan reply
}

// serve is the helper of a Runner: it applies the plan once, then starts
// each command hermes asks for on pl.ServeFD and answers with its pid,
// until hermes closes the socket. Its main thread stays as it is (no
// Landlock domain, so a command cannot signal the helper's process);
// a second thread restricts itself (Landlock, seccomp, capabilities) and
// starts every command, which inherits exactly that thread's
// restrictions. The helper is not dumpable: a command can neither trace
// it nor open its descriptors through /proc. Each command is started in
// a session of its own, and as a child of hermes (CLONE_PARENT), which
// waits for it, kills its process group and reads its exit status as for
// any child of its own.
func serve(pl plan) {
	ctl := pl.ServeFD
	unix.CloseOnExec(ctl)
	fail := func(msg string) {
		sendReply(ctl, reply{Err: msg}, -1)
		helperFail(exitCannotRun, msg)
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fail("not dumpable: " + err.Error())
	}
	if pl.Proxied {
		if err := loopbackUp(); err != nil {
			fail("network allowlist: bring up loopback: " + err.Error())
		}
	}
	jobs, ready := make(chan forkJob), make(chan error)
	go forker(pl, jobs, ready)
	if err := <-ready; err != nil {
		fail(err.Error())
	}
	if err := sendReply(ctl, reply{Pid: os.Getpid()}, -1); err != nil {
		helperFail(exitCannotRun, "answer hermes: "+err.Error())
	}
	buf, oob := make([]byte, maxRequest), make([]byte, unix.CmsgSpace(maxFiles*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(0) // hermes closed its end, or is gone
		}
		fds := receivedFDs(oob[:oobn])
		var job forkJob
		if err := json.Unmarshal(buf[:n], &job.req); err != nil || len(fds) < 3 {
			closeAll(fds)
			sendReply(ctl, reply{Err: fmt.Sprintf("a malformed request (%d descriptors): %v", len(fds), err)}, -1)
			continue
		}
		ln := -1
		if job.req.Proxy && pl.Proxied {
			var port int
			if ln, port, err = listenLoopback(); err != nil {
				closeAll(fds)
				sendReply(ctl, reply{Err: "network allowlist: listen on loopback: " + err.Error()}, -1)
				continue
			}
			job.req.Env = withProxyEnv(job.req.Env, port)
		}
		job.fds, job.done = fds, make(chan reply)
		jobs <- job
		rep := <-job.done
		closeAll(fds)
		if rep.Pid == 0 && ln >= 0 {
			unix.Close(ln)
			ln = -1
		}
		err = sendReply(ctl, rep, ln)
		if ln >= 0 {
			unix.Close(ln)
		}
		if err != nil {
			os.Exit(0)
		}
	}
}

// forker restricts its own thread, says so on ready, then starts the
// commands of jobs from it. The thread is never given back to the
// runtime: it dies with the helper.
func forker(pl plan, jobs <-chan forkJob, ready chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread must stay out of the commands' Landlock domain;
		// keep it here, idle, and restrict another.
		go forker(pl, jobs, ready)
		select {}
	}
	if err := restrict(pl); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for job := range jobs {
		job.done <- forkCommand(job)
	}
}

// forkCommand starts job's command from the restricted thread. What can
// be checked before the fork is: a command whose exec fails in the child
// would be left to hermes as a child it does not know of.
func forkCommand(job forkJob) reply {
	r := job.req
	if err := unix.Access(r.Path, unix.X_OK); err != nil {
		return reply{Err: fmt.Sprintf("%s: %v", r.Path, err), NotFound: errors.Is(err, unix.ENOENT)}
	}
	if st, err := os.Stat(r.Dir); err != nil {
		return reply{Err: fmt.Sprintf("working directory: %v", err)}
	} else if !st.IsDir() {
		return reply{Err: fmt.Sprintf("working directory %s is not a directory", r.Dir)}
	}
	files := make([]uintptr, len(job.fds))
	for i, fd := range job.fds {
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
