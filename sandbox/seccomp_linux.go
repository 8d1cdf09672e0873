package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/hermes-go/hermes/internal/lazy"
)

// syscallABI is an architecture a process of this one can make system
// calls in, and its numbers for ioctl.
type syscallABI struct {
	arch  uint32
	ioctl []uint32
}

// x32's system calls carry this bit on the x86-64 architecture.
const x32Bit = 0x40000000

// ioctlABIs lists, for each GOARCH, every ABI its processes can use: a
// filter that checked only the native one would let a 32-bit ioctl by.
var ioctlABIs = lazy.Of(ioctlABITable)

func ioctlABITable() map[string][]syscallABI {
	return map[string][]syscallABI{
		"amd64":   {{unix.AUDIT_ARCH_X86_64, []uint32{16, x32Bit | 16, x32Bit | 514}}, {unix.AUDIT_ARCH_I386, []uint32{54}}},
		"arm64":   {{unix.AUDIT_ARCH_AARCH64, []uint32{29}}, {unix.AUDIT_ARCH_ARM, []uint32{54}}},
		"386":     {{unix.AUDIT_ARCH_I386, []uint32{54}}},
		"arm":     {{unix.AUDIT_ARCH_ARM, []uint32{54}}},
		"riscv64": {{unix.AUDIT_ARCH_RISCV64, []uint32{29}}},
		"loong64": {{unix.AUDIT_ARCH_LOONGARCH64, []uint32{29}}},
		"ppc64le": {{unix.AUDIT_ARCH_PPC64LE, []uint32{54}}},
		"s390x":   {{unix.AUDIT_ARCH_S390X, []uint32{54}}},
	}
}

// refusedIoctls push characters into a terminal's input as if typed
// (TIOCSTI) or, on a virtual console, paste its selection into it among
// other things (TIOCLINUX).
var refusedIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX}

// refuseTerminalInjection installs, for this thread and what it executes,
// a seccomp filter under which ioctl TIOCSTI and TIOCLINUX fail with
// EPERM on every file, whatever else allows them.
func refuseTerminalInjection() error {
	prog, err := ttyFilter(runtime.GOARCH)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp filter: %w", errno)
	}
	return nil
}

// Offsets in struct seccomp_data.
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArg1 = 24 // args[1], the ioctl request
)

// ttyFilter is the classic BPF program of refuseTerminalInjection for
// goarch.
func ttyFilter(goarch string) ([]unix.SockFilter, error) {
	abis, ok := ioctlABIs.Get()[goarch]
	if !ok {
		return nil, fmt.Errorf("no seccomp filter for %s", goarch)
	}
	// The request is an unsigned int: only its low 32 bits count.
	request := uint32(seccompArg1)
	if !littleEndian() {
		request += 4
	}
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: jt, Jf: jf}
	}
	load := func(off uint32) unix.SockFilter { return stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
	ret := func(k uint32) unix.SockFilter { return stmt(unix.BPF_RET|unix.BPF_K, k) }

	// Each (architecture, number) pair is four instructions that jump to
	// the request check on a match and fall through otherwise.
	var pairs [][2]uint32
	for _, abi := range abis {
		for _, nr := range abi.ioctl {
			pairs = append(pairs, [2]uint32{abi.arch, nr})
		}
	}
	var prog []unix.SockFilter
	for i, p := range pairs {
		toCheck := uint8(4*(len(pairs)-i-1) + 1) // past the later pairs and the allow
		prog = append(prog, load(seccompArch), jeq(p[0], 0, 2), load(seccompNr), jeq(p[1], toCheck, 0))
	}
	prog = append(prog, ret(unix.SECCOMP_RET_ALLOW))
	prog = append(prog, load(request))
	for i, req := range refusedIoctls {
		prog = append(prog, jeq(req, uint8(len(refusedIoctls)-i), 0))
	}
	prog = append(prog, ret(unix.SECCOMP_RET_ALLOW), ret(unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM)))
	return prog, nil
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
