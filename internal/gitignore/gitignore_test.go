package gitignore

import "testing"

func TestGitignoreMatcher(t *testing.T) {
	tests := []struct {
		pattern, base, path string
		dir, want           bool
	}{
		{"*.log", "", "a/b/c.log", false, true},
		{"*.log", "", "c.log.txt", false, false},
		{"build/", "", "x/build", true, true},
		{"build/", "", "x/build", false, false},
		{"/top.txt", "", "top.txt", false, true},
		{"/top.txt", "", "a/top.txt", false, false},
		{"a/b", "", "a/b", false, true},
		{"a/b", "", "x/a/b", false, false},
		{"**/foo", "", "x/y/foo", false, true},
		{"**/foo", "", "foo", false, true},
		{"a/**/b", "", "a/b", false, true},
		{"a/**/b", "", "a/x/y/b", false, true},
		{"a/**", "", "a/x/y", false, true},
		{"doc/*.txt", "", "doc/x/y.txt", false, false},
		{"f?o", "", "fxo", false, true},
		{"[abc].go", "", "b.go", false, true},
		{"[!abc].go", "", "b.go", false, false},
		{`\#file`, "", "#file", false, true},
		{"# comment", "", "# comment", false, false},
		{"*.tmp", "sub", "sub/x.tmp", false, true},
		{"*.tmp", "sub", "other/x.tmp", false, false},
		{"/only", "sub", "sub/only", false, true},
		{"/only", "sub", "sub/deeper/only", false, false},
		{"trailing   ", "", "trailing", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.pattern+" "+tc.path, func(t *testing.T) {
			s := &Set{}
			if r, ok := parseLine(tc.pattern, tc.base); ok {
				s.rules = append(s.rules, r)
			}
			if got := s.Ignored(tc.path, tc.dir); got != tc.want {
				t.Errorf("ignored(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	neg := &Set{}
	for _, l := range []string{"*.log", "!keep.log"} {
		r, _ := parseLine(l, "")
		neg.rules = append(neg.rules, r)
	}
	if neg.Ignored("keep.log", false) || !neg.Ignored("drop.log", false) {
		t.Error("negation: last matching rule must win")
	}
}
