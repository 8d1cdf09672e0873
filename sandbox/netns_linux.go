package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// startNetProxy runs in the helper, in the command's new network
// namespace, for allowlist mode: it brings loopback up, listens on
// 127.0.0.1 there and hands the listener, with a pidfd of this process
// (the command's, once it is executed), to hermes over fd, which hermes
// serves the proxy from until the command exits. It then points the
// proxy variables at the listener. The command inherits none of these
// descriptors.
func startNetProxy(fd int) error {
	defer unix.Close(fd)
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bring up loopback: %w", err)
	}
	ln, port, err := listenLoopback()
	if err != nil {
		return fmt.Errorf("listen on loopback: %w", err)
	}
	defer unix.Close(ln)
	pidfd, err := unix.PidfdOpen(os.Getpid(), unix.PIDFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("pidfd_open: %w", err)
	}
	defer unix.Close(pidfd)
	if err := unix.Sendmsg(fd, []byte{1}, unix.UnixRights(ln, pidfd), nil, 0); err != nil {
		return fmt.Errorf("hand the proxy listener to hermes: %w", err)
	}
	setProxyEnv(port)
	return nil
}

// loopbackUp sets lo up: a new network namespace starts with it down.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}

// listenLoopback listens on 127.0.0.1 on a port the kernel picks.
func listenLoopback() (fd, port int, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	if err = unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err == nil {
		err = unix.Listen(fd, syscall.SOMAXCONN)
	}
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(fd)
	}
	if err != nil {
		unix.Close(fd)
		return -1, 0, err
	}
	return fd, sa.(*unix.SockaddrInet4).Port, nil
}

// noProxy are the hosts a command reaches directly: its own loopback.
const noProxy = "localhost,127.0.0.1,::1"

// setProxyEnv points the proxy variables, in both the upper and the
// lower case tools read, at the proxy on port: HTTP for http and https
// (CONNECT), SOCKS5 with names resolved by the proxy for the rest.
func setProxyEnv(port int) {
	http := "http://127.0.0.1:" + strconv.Itoa(port)
	socks := "socks5h://127.0.0.1:" + strconv.Itoa(port)
	for _, kv := range [][2]string{
		{"HTTP_PROXY", http}, {"HTTPS_PROXY", http}, {"ALL_PROXY", socks}, {"NO_PROXY", noProxy},
		{"http_proxy", http}, {"https_proxy", http}, {"all_proxy", socks}, {"no_proxy", noProxy},
	} {
		os.Setenv(kv[0], kv[1])
	}
}
