package browser

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play hermes for TestKilledParentTakesTheBrowserAlong.
func TestMain(m *testing.M) {
	if os.Getenv("BROWSER_TEST_PARENT") == "1" {
		parent()
		return
	}
	os.Exit(m.Run())
}

// parent starts a long-lived child the way the browser is started and
// waits to be killed.
func parent() {
	runtime.LockOSThread() // Pdeathsig follows the thread that started the child
	cmd := exec.Command("sleep", "600")
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
	select {}
}

// A browser started by hermes dies when hermes is killed, even one that
// would not notice on its own (this child ignores its parent), and runs
// in a process group of its own.
func TestKilledParentTakesTheBrowserAlong(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BROWSER_TEST_PARENT=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("parent said %q", line)
	}
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Errorf("the child's process group is %d, not its own", pgid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(st), ") Z ") {
			return // gone, or dead and waiting to be reaped by init
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the child outlived its killed parent")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
