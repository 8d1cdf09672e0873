package editdist

import "testing"

func TestDistanceCountsASwapAsOneEdit(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"model", "model", 0},
		{"modle", "model", 1},
		{"mdel", "model", 1},
		{"modelx", "model", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
