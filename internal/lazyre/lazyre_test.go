package lazyre

import (
	"fmt"
	"regexp"
	"testing"
)

var declared = New(`a(b+)`)

func TestCompilesOnceOnFirstUse(t *testing.T) {
	if declared.re != nil {
		t.Fatal("compiled before its first use")
	}
	first := declared.Get()
	if first != declared.Get() {
		t.Fatal("compiled twice")
	}
	if m := first.FindStringSubmatch("xabbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match %v", m)
	}
}

// A pattern that does not compile panics as regexp.MustCompile does, on
// every use, not only the first.
func TestBadPatternPanicsOnEveryUse(t *testing.T) {
	want := func() (p any) {
		defer func() { p = recover() }()
		regexp.MustCompile(`a(`)
		return nil
	}()
	bad := New(`a(`)
	for i := range 2 {
		got := func() (p any) {
			defer func() { p = recover() }()
			bad.Get()
			return nil
		}()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("use %d panicked with %v, want %v", i+1, got, want)
		}
	}
}
