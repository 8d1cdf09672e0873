package sandbox

import (
	"encoding/binary"
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets the classic BPF instructions ttyFilter emits on
// a struct seccomp_data of nr, arch and ioctl request (args[1]).
func runFilter(t *testing.T, prog []unix.SockFilter, order binary.ByteOrder, arch, nr uint32, request uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	order.PutUint32(data[seccompNr:], nr)
	order.PutUint32(data[seccompArch:], arch)
	order.PutUint64(data[seccompArg1:], request)
	var a uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			a = order.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if a == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unexpected code %#x", pc, in.Code)
		}
	}
	t.Fatal("the filter ran off its end")
	return 0
}

func TestTheTerminalFilterRefusesTIOCSTIAndTIOCLINUXInEveryABI(t *testing.T) {
	deny := unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	for goarch, abis := range ioctlABIs.Get() {
		prog, err := ttyFilter(goarch)
		if err != nil {
			t.Fatal(err)
		}
		// The filter reads the request's low word where this machine
		// keeps it; the interpreter must read the data the same way.
		order := binary.ByteOrder(binary.LittleEndian)
		if !littleEndian() {
			order = binary.BigEndian
		}
		for _, abi := range abis {
			for _, nr := range abi.ioctl {
				name := fmt.Sprintf("%s arch %#x nr %#x", goarch, abi.arch, nr)
				for _, req := range refusedIoctls {
					if got := runFilter(t, prog, order, abi.arch, nr, uint64(req)); got != deny {
						t.Errorf("%s: request %#x gets %#x, want EPERM", name, req, got)
					}
					// The kernel reads the request as an unsigned int.
					if got := runFilter(t, prog, order, abi.arch, nr, 1<<32|uint64(req)); got != deny {
						t.Errorf("%s: request %#x with high bits gets %#x, want EPERM", name, req, got)
					}
				}
				if got := runFilter(t, prog, order, abi.arch, nr, unix.TCGETS); got != unix.SECCOMP_RET_ALLOW {
					t.Errorf("%s: TCGETS gets %#x, want it allowed", name, got)
				}
				// The same numbers in another call are other calls.
				if got := runFilter(t, prog, order, abi.arch, nr+1, unix.TIOCSTI); got != unix.SECCOMP_RET_ALLOW {
					t.Errorf("%s: system call %#x gets %#x, want it allowed", name, nr+1, got)
				}
			}
		}
	}
	if _, err := ttyFilter("vax"); err == nil {
		t.Error("a filter for an architecture it does not know")
	}
}
