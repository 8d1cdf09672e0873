package approval

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Options are read as getopt_long reads them: clusters, values attached
// or not, long names abbreviated to a unique prefix, -- ending them, and
// operands before options when the program permutes them. The long
// options come from the table and from the text form together (--s is
// ambiguous between one of each).
func TestOptionsAreReadAsGetoptLongReadsThem(t *testing.T) {
	spec := optSpec{short: "c:lvs::", long: []longOpt{
		{"command", requiredArg, "c"}, {"session-command", requiredArg, "C"},
	}, longText: "shell=:s login:l level== verbose:v version:v"}
	inOrder := spec
	inOrder.inOrder = true
	for _, tc := range []struct {
		spec *optSpec
		args string
		opts string // id=value, space-separated
		ops  string
		err  string
	}{
		{&spec, "-c x", "c=x", "", ""},
		{&spec, "-cx", "c=x", "", ""},
		{&spec, "-lcx y", "l= c=x", "y", ""},
		{&spec, "-lc x y", "l= c=x", "y", ""},
		{&spec, "--command=x", "c=x", "", ""},
		{&spec, "--command x", "c=x", "", ""},
		{&spec, "--comm x", "c=x", "", ""},
		{&spec, "--c=x", "c=x", "", ""},
		{&spec, "--sess x", "C=x", "", ""},
		{&spec, "--s x", "", "", "ambiguous"},
		{&spec, "--ve", "v=", "", ""}, // verbose and version are the same option
		{&spec, "--l", "", "", "ambiguous"},
		{&spec, "--login=x", "", "", "doesn't allow"},
		{&spec, "--level x", "level=", "x", ""},
		{&spec, "--level=3", "level=3", "", ""},
		{&spec, "-s x", "s=", "x", ""},
		{&spec, "-sx", "s=x", "", ""},
		{&spec, "-c", "", "", "requires"},
		{&spec, "-q", "", "", "invalid"},
		{&spec, "--nope", "", "", "unrecognized"},
		{&spec, "a -c x b", "c=x", "a b", ""},
		{&spec, "a -- -c x", "", "a -c x", ""},
		{&spec, "- -l", "l=", "-", ""},
		{&inOrder, "-l a -c x", "l=", "a -c x", ""},
		{&inOrder, "-l -- -c x", "l=", "-c x", ""},
	} {
		t.Run(tc.args, func(t *testing.T) {
			opts, ops, err := tc.spec.parse(strings.Fields(tc.args))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range opts {
				got = append(got, o.id+"="+o.value)
			}
			if strings.Join(got, " ") != tc.opts || strings.Join(ops, " ") != tc.ops {
				t.Errorf("options %q operands %q, want %q %q", got, ops, tc.opts, tc.ops)
			}
		})
	}
}

// envSplit splits a -S string into the words coreutils' env gives the
// program it runs, and refuses what env refuses. The real env is the
// reference: it runs printf on each string, and the shell reads back
// the words envSplit made.
func TestEnvSplitMatchesEnv(t *testing.T) {
	if err := exec.Command("env", "-S", "true").Run(); err != nil {
		t.Skipf("this env has no -S: %v", err)
	}
	vars := []string{"PATH=/usr/bin:/bin", "GREETING=hello world"}
	for _, s := range []string{
		`a b  c`,
		`'a b' "c d" e`,
		`'it''s' "x"y`,
		`a\_b c\tb "d\_e"`,
		`a #b c`,
		`a b#c`,
		`'#a' b`,
		`a \c b`,
		`"\$x" '\$y' \#z`,
		`'a\\b\'c'`,
		`${GREETING} x${GREETING}y '${GREETING}'`,
		`''`,
		`a '' b`,
		`"a\nb"`,
		"a\rb\tc",
		`"unterminated`,
		`a\q`,
		`$GREETING`,
		`"\c"`,
	} {
		t.Run(s, func(t *testing.T) {
			cmd := exec.Command("env", "-S", `printf [%s]\n `+s)
			cmd.Env = vars
			want, err := cmd.Output()
			words, ok := envSplit(`printf [%s]\n ` + s)
			if (err == nil) != ok {
				t.Fatalf("env: %v, envSplit ok=%v", err, ok)
			}
			if !ok {
				return
			}
			if len(words) < 2 {
				t.Fatalf("words %q", words)
			}
			if len(words) == 2 {
				words = append(words, "") // printf prints its format once
			}
			sh := exec.Command("sh", "-c", `printf '[%s]\n' `+strings.Join(words[2:], " "))
			sh.Env = vars
			got, err := sh.Output()
			if err != nil || string(got) != string(want) {
				t.Errorf("envSplit %q reads %q, env gives %q (%v)", words, got, want, err)
			}
		})
	}
	if _, ok := envSplit(`a\`); ok {
		t.Error("a trailing backslash was accepted")
	}
	if w, ok := envSplit("  "); !ok || !slices.Equal(w, nil) {
		t.Errorf("blank: %q %v", w, ok)
	}
}
