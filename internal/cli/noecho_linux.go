//go:build linux

package cli

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// withoutEcho runs read with the terminal f no longer echoing what is
// typed, and puts the terminal back after, also when Ctrl-C ends hermes
// in the middle. Where f's echo cannot be turned off, read runs as it is.
func withoutEcho(f *os.File, read func() (string, error)) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return read()
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ECHONL // the Enter still shows, as a line break
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return read()
	}
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, os.Interrupt, unix.SIGTERM, unix.SIGHUP)
	go func() {
		select {
		case s := <-sig:
			// Leave the terminal as it was, then die of the signal.
			_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
			signal.Reset(s)
			_ = unix.Kill(os.Getpid(), s.(unix.Signal))
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sig)
		close(done)
		_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
	}()
	return read()
}
