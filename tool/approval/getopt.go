package approval

import (
	"fmt"
	"iter"
	"strings"
)

// argKind is whether an option takes a value, as getopt_long has it.
type argKind uint8

const (
	noArg argKind = iota
	requiredArg
	optionalArg
)

// longOpt is one long option. id is the short letter it stands for, or
// its own name when it has none.
type longOpt struct {
	name string
	arg  argKind
	id   string
}

// optSpec is how a program reads its options, so that a command carried
// in one (su -c, env -S) is found whatever spelling getopt_long accepts:
// clustered short options (-lc, -iS), values attached or not (-Sx, -S x,
// --command=x, --command x) and long names abbreviated to any unique
// prefix (--comm, --sess).
type optSpec struct {
	// short is getopt's optstring without the leading '+': a letter, then
	// ':' when it takes a value, '::' when the value is optional.
	short string
	long  []longOpt
	// longText is more long options, in the form longOption reads. It is
	// read where an option is looked up, not into a table at start.
	longText string
	// inOrder stops at the first operand (a '+' optstring: env, timeout);
	// otherwise options may follow operands, as GNU getopt permutes them.
	inOrder bool
}

// option is one option read: its id and value.
type option struct {
	id    string
	value string
}

// optReader reads one command line's options in order.
type optReader struct {
	spec     *optSpec
	args     []string
	i        int    // the next argument
	cluster  string // the unread letters of a short-option cluster
	operands []string
	// sep is how many operands came before a -- that ended the options,
	// or -1 when none did.
	sep int
}

func (s *optSpec) reader(args []string) *optReader { return &optReader{spec: s, args: args, sep: -1} }

// next returns the next option; ok is false when the options end, and
// err says why the program would refuse the line (an unknown or
// ambiguous option, a missing value).
func (r *optReader) next() (o option, ok bool, err error) {
	if r.cluster != "" {
		return r.short()
	}
	for r.i < len(r.args) {
		a := r.args[r.i]
		if a == "--" {
			r.sep = len(r.operands)
			r.operands = append(r.operands, r.args[r.i+1:]...)
			r.i = len(r.args)
			return option{}, false, nil
		}
		if len(a) < 2 || a[0] != '-' {
			if r.spec.inOrder {
				return option{}, false, nil
			}
			r.operands = append(r.operands, a)
			r.i++
			continue
		}
		r.i++
		if strings.HasPrefix(a, "--") {
			return r.long(a[2:])
		}
		r.cluster = a[1:]
		return r.short()
	}
	return option{}, false, nil
}

// rest returns the operands: those read past, then the arguments not read.
func (r *optReader) rest() []string {
	return append(append([]string(nil), r.operands...), r.args[r.i:]...)
}

// unread returns the arguments after the option just read.
func (r *optReader) unread() []string { return r.args[r.i:] }

func (r *optReader) short() (option, bool, error) {
	c := r.cluster[0]
	r.cluster = r.cluster[1:]
	k := strings.IndexByte(r.spec.short, c)
	if c == ':' || k < 0 {
		r.cluster = ""
		return option{}, false, fmt.Errorf("invalid option -- '%c'", c)
	}
	kind := noArg
	if k+1 < len(r.spec.short) && r.spec.short[k+1] == ':' {
		kind = requiredArg
		if k+2 < len(r.spec.short) && r.spec.short[k+2] == ':' {
			kind = optionalArg
		}
	}
	o := option{id: string(c)}
	switch {
	case kind == noArg:
	case r.cluster != "":
		o.value, r.cluster = r.cluster, ""
	case kind == optionalArg:
	case r.i < len(r.args):
		o.value = r.args[r.i]
		r.i++
	default:
		return option{}, false, fmt.Errorf("option requires an argument -- '%c'", c)
	}
	return o, true, nil
}

// long reads --name[=value]; name may be any prefix that names one
// option, or several that getopt_long cannot tell apart.
func (r *optReader) long(body string) (option, bool, error) {
	name, value, hasValue := strings.Cut(body, "=")
	var match longOpt
	found, ambiguous := false, false
	for lo := range r.spec.longOpts() {
		if lo.name == name {
			match, found, ambiguous = lo, true, false
			break
		}
		if !strings.HasPrefix(lo.name, name) {
			continue
		}
		if !found {
			match, found = lo, true
		} else if match.arg != lo.arg || match.id != lo.id {
			ambiguous = true
		}
	}
	switch {
	case !found:
		return option{}, false, fmt.Errorf("unrecognized option '--%s'", name)
	case ambiguous:
		return option{}, false, fmt.Errorf("option '--%s' is ambiguous", name)
	}
	o := option{id: match.id}
	switch match.arg {
	case noArg:
		if hasValue {
			return option{}, false, fmt.Errorf("option '--%s' doesn't allow an argument", match.name)
		}
	case requiredArg:
		switch {
		case hasValue:
			o.value = value
		case r.i < len(r.args):
			o.value = r.args[r.i]
			r.i++
		default:
			return option{}, false, fmt.Errorf("option '--%s' requires an argument", match.name)
		}
	case optionalArg:
		o.value = value
	}
	return o, true, nil
}

// parse reads every option; operands are what is left.
func (s *optSpec) parse(args []string) (opts []option, operands []string, err error) {
	r := s.reader(args)
	for {
		o, ok, err := r.next()
		if err != nil {
			return opts, nil, err
		}
		if !ok {
			return opts, r.rest(), nil
		}
		opts = append(opts, o)
	}
}

// longOpts yields the long options: the table, then those of longText.
func (s *optSpec) longOpts() iter.Seq[longOpt] {
	return func(yield func(longOpt) bool) {
		for _, o := range s.long {
			if !yield(o) {
				return
			}
		}
		for f := range strings.FieldsSeq(s.longText) {
			if !yield(longOption(f)) {
				return
			}
		}
	}
}

// longOption reads one long option of a table written as text, one a
// field: the name, then = when it takes a value (== when the value is
// optional), then :x when it stands for the short option x (its id is
// otherwise its name).
func longOption(f string) longOpt {
	spec, id, hasID := strings.Cut(f, ":")
	o := longOpt{name: strings.TrimRight(spec, "="), arg: noArg}
	switch {
	case strings.HasSuffix(spec, "=="):
		o.arg = optionalArg
	case strings.HasSuffix(spec, "="):
		o.arg = requiredArg
	}
	o.id = o.name
	if hasID {
		o.id = id
	}
	return o
}
