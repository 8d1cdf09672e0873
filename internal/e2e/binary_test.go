package e2e

import (
	"debug/elf"
	"debug/gosym"
	"runtime"
	"strings"
	"testing"
)

// The README's build gives one static binary: no program interpreter, no
// shared library to find at run time.
func TestBinaryIsStatic(t *testing.T) {
	f := openBinary(t)
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the binary names a program interpreter: it is dynamically linked")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Fatalf("the binary needs shared libraries: %v", libs)
	}
}

// What must not be linked, by function-name prefix. reflect's Method and
// MethodByName (text/template brings them, through a cobra template) stop
// the linker from dropping unused exported methods, which doubles the
// binary. The openai-go root package registers every service's types at
// init (realtime, webhooks, websockets, ...): 16 MB that the transports,
// which post their own bodies, do not need.
var unwantedFuncs = []string{
	"reflect.Value.Method",
	"github.com/openai/openai-go/v3.",
	"github.com/openai/openai-go/v3/option.",
	"github.com/coder/websocket.",
	// chroma's registries parse every lexer and style at start-up, in
	// each process (the sandbox helper of every command too).
	"github.com/alecthomas/chroma/v2/lexers.",
	"github.com/alecthomas/chroma/v2/styles.",
}

func TestBinaryLinksNothingUnused(t *testing.T) {
	f := openBinary(t)
	data, err := f.Section(".gopclntab").Data()
	if err != nil {
		t.Fatal(err)
	}
	// The function table survives -s -w: it is what stack traces use.
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, fn := range tab.Funcs {
		for _, p := range unwantedFuncs {
			if strings.HasPrefix(fn.Name, p) && found[p] == "" {
				found[p] = fn.Name
			}
		}
	}
	for p, name := range found {
		t.Errorf("the binary links %s (%s)", p, name)
	}
}

func openBinary(t *testing.T) *elf.File {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads the ELF binary")
	}
	f, err := elf.Open(hermesBin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
