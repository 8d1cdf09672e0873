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

// signalABI is, for one architecture a process can make system calls in,
// the numbers of the calls that send a signal to a process or thread
// named by its id, or open a pidfd of one, and of fcntl.
type signalABI struct {
	arch uint32
	// byPid name the target in args[0]: kill, tkill, rt_sigqueueinfo,
	// pidfd_open.
	byPid []uint32
	// byGroup name its thread group in args[0], the signal in args[2]:
	// tgkill, rt_tgsigqueueinfo.
	byGroup []uint32
	// fcntl and fcntl64.
	fcntl []uint32
}

// signalABIs lists, for goarch, every ABI its processes can use; false
// where the numbers are not known here.
func signalABIs(goarch string) ([]signalABI, bool) {
	switch goarch {
	case "amd64":
		return []signalABI{
			{unix.AUDIT_ARCH_X86_64, []uint32{62, 200, 129, 434}, []uint32{234, 297}, []uint32{72}},
			{unix.AUDIT_ARCH_X86_64, []uint32{x32Bit | 62, x32Bit | 200, x32Bit | 524, x32Bit | 434}, []uint32{x32Bit | 234, x32Bit | 536}, []uint32{x32Bit | 72}},
			{unix.AUDIT_ARCH_I386, []uint32{37, 238, 178, 434}, []uint32{270, 335}, []uint32{55, 221}},
		}, true
	}
	return nil, false
}

// guardHelper installs, for the calling lane thread and the commands it
// starts, a seccomp filter under which no signal reaches the helper's
// process through that thread: kill, tkill, rt_sigqueueinfo and
// pidfd_open of the helper's pid or of tid fail with EPERM, so do tgkill
// and rt_tgsigqueueinfo into the helper's thread group (but the
// runtime's own preemption signal, SIGURG, which no program acts on),
// and fcntl F_SETSIG (a SIGIO replaced by a stop or kill signal). The
// Landlock scope keeps other processes out already; this thread shares
// the commands' domain, and a stop or kill signal aimed at one thread
// stops or ends the whole helper, every lane with it. Where the numbers
// are not known (guardsSignals false) it does nothing.
func guardHelper(pid, tid int) error {
	prog, ok := guardFilter(runtime.GOARCH, uint32(pid), uint32(tid))
	if !ok {
		return nil
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp filter: %w", errno)
	}
	return nil
}

// guardsSignals reports whether guardHelper can protect a helper shared
// by several Runners on this architecture.
func guardsSignals() bool {
	_, ok := signalABIs(runtime.GOARCH)
	return ok
}

// guardFilter is guardHelper's classic BPF program for goarch.
func guardFilter(goarch string, pid, tid uint32) ([]unix.SockFilter, bool) {
	abis, ok := signalABIs(goarch)
	if !ok {
		return nil, false
	}
	// Arguments are compared in their low 32 bits: ids and signals are
	// ints.
	arg := func(i uint32) uint32 {
		off := uint32(16 + 8*i)
		if !littleEndian() {
			off += 4
		}
		return off
	}
	var a bpfAsm
	for i, abi := range abis {
		next := fmt.Sprintf("abi%d", i+1)
		a.load(seccompArch)
		a.jeq(abi.arch, "", next)
		a.load(seccompNr)
		for _, nr := range abi.byPid {
			a.jeq(nr, "pid", "")
		}
		for _, nr := range abi.byGroup {
			a.jeq(nr, "group", "")
		}
		for _, nr := range abi.fcntl {
			a.jeq(nr, "fcntl", "")
		}
		a.label(next)
	}
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("pid")
	a.load(arg(0))
	a.jeq(pid, "deny", "")
	a.jeq(tid, "deny", "allow")
	a.label("group")
	a.load(arg(0))
	a.jeq(pid, "", "allow")
	a.load(arg(2))
	a.jeq(uint32(unix.SIGURG), "allow", "deny")
	a.label("fcntl")
	a.load(arg(1))
	a.jeq(unix.F_SETSIG, "deny", "allow")
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	a.label("deny")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	return a.assemble(), true
}

// bpfAsm assembles a classic BPF program whose conditional jumps name
// labels ("" is the next instruction); every jump goes forward.
type bpfAsm struct {
	prog   []unix.SockFilter
	jumps  map[int][2]string
	labels map[string]int
}

func (a *bpfAsm) load(off uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpfAsm) ret(k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k})
}

func (a *bpfAsm) jeq(k uint32, yes, no string) {
	if a.jumps == nil {
		a.jumps = map[int][2]string{}
	}
	a.jumps[len(a.prog)] = [2]string{yes, no}
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the jumps; a label out of a jump's reach is a bug in
// the program and panics.
func (a *bpfAsm) assemble() []unix.SockFilter {
	off := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := a.labels[label]
		d := to - at - 1
		if !ok || d < 0 || d > 255 {
			panic(fmt.Sprintf("seccomp: jump from %d to %q (%d)", at, label, to))
		}
		return uint8(d)
	}
	for at, j := range a.jumps {
		a.prog[at].Jt, a.prog[at].Jf = off(at, j[0]), off(at, j[1])
	}
	return a.prog
}
