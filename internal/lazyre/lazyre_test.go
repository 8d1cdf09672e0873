package lazyre

import "testing"

func TestCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`a(b+)`)
	first := re()
	if first != re() {
		t.Fatal("compiled twice")
	}
	if m := first.FindStringSubmatch("xabbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match %v", m)
	}
}
