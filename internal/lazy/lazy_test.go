package lazy

import (
	"testing"
)

var builds int

func buildList() []string {
	builds++
	return []string{"a", "b"}
}

var list = Of(buildList)

func TestBuiltOnceOnFirstGet(t *testing.T) {
	if builds != 0 {
		t.Fatal("built before its first use")
	}
	a, b := list.Get(), list.Get()
	if builds != 1 || len(a) != 2 || &a[0] != &b[0] {
		t.Fatalf("%d builds, values %v and %v", builds, a, b)
	}
}

var panics = 0

func buildPanic() int {
	panics++
	panic("no table")
}

// A build that panics makes every Get panic with its value, as
// sync.OnceValue does, and is not run again.
func TestPanicRepeats(t *testing.T) {
	v := Of(buildPanic)
	for i := range 2 {
		got := func() (p any) {
			defer func() { p = recover() }()
			v.Get()
			return nil
		}()
		if got != "no table" {
			t.Fatalf("Get %d panicked with %v", i+1, got)
		}
	}
	if panics != 1 {
		t.Fatalf("build ran %d times", panics)
	}
}
