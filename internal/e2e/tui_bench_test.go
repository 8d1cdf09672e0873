package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// BenchmarkTUIFirstPaint times `hermes chat` on a pseudo-terminal from
// the process start to the first frame holding the prompt: start-up,
// configuration, the session database, the runtime, the UI's first
// view and its write to the terminal.
func BenchmarkTUIFirstPaint(b *testing.B) {
	srv := llmtest.NewServer(b)
	home, work := b.TempDir(), b.TempDir()
	var total, firstByte time.Duration
	for range b.N {
		master, slave := openPTY(b)
		ws := struct{ rows, cols, x, y uint16 }{40, 120, 0, 0}
		syscall.Syscall(syscall.SYS_IOCTL, slave.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
		cmd := exec.Command(hermesBin, "chat", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "TERM=xterm-256color"}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var seen bytes.Buffer
		buf := make([]byte, 64<<10)
		master.SetReadDeadline(time.Now().Add(10 * time.Second))
		var first time.Duration
		for !bytes.Contains(seen.Bytes(), []byte("sk anything")) {
			n, err := master.Read(buf)
			if first == 0 {
				first = time.Since(start)
			}
			if err != nil {
				b.Fatalf("reading the terminal: %v; it got %q", err, seen.String())
			}
			seen.Write(buf[:n])
		}
		total += time.Since(start)
		firstByte += first
		cmd.Process.Kill()
		cmd.Wait()
		master.Close()
		slave.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-first-paint")
	b.ReportMetric(float64(firstByte.Microseconds())/1000/float64(b.N), "ms-first-byte")
}
