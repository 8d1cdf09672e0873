package approval

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// GNU parallel reads its options with Perl's Getopt::Long (bundled
// letters, long names abbreviated, stopping at the command template).
var parallelSpec = optSpec{short: "0a:B:C:d:D:E:e::ghH:I:i::j:J:kl::L:mMn:N:pP:qrs:S:tTuU:vVW:xXY", inOrder: true,
	longText: "xargs debug=:D sqlmaster= sqlworker= sqlandworker= joblog=:jl jl= results= result= res= resume resume-failed " +
		"retry-failed silent keep-order:k no-keep-order group ungroup:u latest-line line-buffer lb tmux tmux-pane " +
		"null:0 quote:q parens= rpl= plus extensionreplace= er= basenamereplace= bnr= dirnamereplace= dnr= " +
		"basenameextensionreplace= bner= seqreplace= slotreplace= jobs=:j delay= ssh-delay= sshdelay= load= noswap " +
		"max-line-length-allowed number-of-cpus number-of-sockets number-of-cores number-of-threads " +
		"shell-quote shellquote nice= tag tag-string= tagstring= ctag ctag-string= color colour color-failed cf " +
		"onall nonall filter-hosts sshlogin=:S sshloginfile= slf= controlmaster:M ssh= transfer-file= transferfile= " +
		"tf= return= trc= transfer cleanup basefile= bf= template= tmpl= work-dir= workdir= wd= rsync-opts= " +
		"tmpdir= tempdir= compress-program= decompress-program= compress tty dry-run dryrun progress eta bar " +
		"total-jobs= total= shuf arg-sep=:argsep argsep= arg-file-sep=:argfilesep argfilesep= trim= env= " +
		"record-env session plain profile=:J tollef gnu link xapply linkinputsource= bibtex citation will-cite " +
		"nn no-notice halt-on-error= halt= limit= memfree= memsuspend= retries= timeout= term-seq= termseq= " +
		"max-procs=:P delimiter=:d max-chars=:s arg-file=:a argfile=:a no-run-if-empty:r replace==:i eof==:e " +
		"max-args=:n max-replace-args=:N col-sep=:C colsep=:C csv help:h max-lines==:l interactive:p verbose:t " +
		"version:V minversion= show-limits exit:x semaphore semaphore-timeout= st= semaphore-name= id= fg bg wait " +
		"shebang hashbang skip-first-line bug header= cat fifo pipe spreadstdin round-robin recstart= recend= " +
		"regexp rrs files files0 block= block-size= blocktimeout= pipe-part pipepart tee shard= bin= group-by= " +
		"hgrp embed filter= combine-exec="}

// reParallelReplace finds the replacement strings of a command template:
// {}, {.}, {/}, {//}, {/.}, {#}, {%}, their positional forms ({2},
// {2/.}) and those of --plus, and {= perl =}.
var reParallelReplace = lazyre.New(`\{(\d*)(\.|/|//|/\.|#|%|\+/|\+\.|\+\.\.|\+\.\.\.|\.\.|\.\.\.|/\.\.|/\.\.\.|##)?\}|\{=.*?=\}`)

// parallelMax bounds the combinations of input values judged.
const parallelMax = 64

// parallelLaunch is what GNU parallel runs: for each input value (from
// ::: lists, or the lines of its standard input), the command template
// with the value in place of its replacement strings or appended,
// quoted, run by a shell; with no template, the values themselves are
// the command lines. With --pipe, standard input is the template's
// input instead.
func parallelLaunch(args []string) launch {
	r := parallelSpec.reader(args)
	o := parallelOptions{argSep: ":::", fileSep: "::::", replace: "{}"}
	var templates [][]string
	for {
		opt, more, err := r.next()
		if err != nil {
			// An option this table lacks: any later word may start the
			// template.
			for i := r.i; i < len(args); i++ {
				if !strings.HasPrefix(args[i], "-") {
					templates = append(templates, args[i:])
				}
			}
			break
		}
		if !more {
			templates = append(templates, r.rest())
			break
		}
		switch opt.id {
		case "argsep":
			o.argSep = opt.value
		case "argfilesep":
			o.fileSep = opt.value
		case "I":
			o.replace = opt.value
		case "i":
			if opt.value != "" {
				o.replace = opt.value
			}
		case "q":
			o.quote = true
		case "pipe", "spreadstdin", "pipepart", "pipe-part":
			o.pipe = true
		case "a":
			o.files = true
		case "X", "m", "n", "N", "L", "l", "xargs", "s":
			o.many = true
		case "h", "V":
			return launch{}
		}
	}
	var l launch
	for _, t := range templates {
		l.add(o.jobs(t))
	}
	return l
}

// parallelOptions are the options that change what parallel runs.
type parallelOptions struct {
	argSep, fileSep string // ::: and ::::, or --arg-sep and --arg-file-sep
	replace         string // -I's replacement string
	quote           bool   // -q: the template's words are quoted
	pipe            bool   // --pipe: standard input is the jobs' input
	files           bool   // values come from files (-a, ::::)
	many            bool   // -X, -m, -n ...: several values per job
}

// jobs is what parallel runs for a template and the input sources after
// it.
func (o parallelOptions) jobs(words []string) launch {
	// The template ends at the first input source.
	var template []string
	var sources [][]string
	i := 0
	for ; i < len(words) && !o.isSep(words[i]); i++ {
		template = append(template, words[i])
	}
	files := o.files
	for i < len(words) {
		fromFile := words[i] == o.fileSep || words[i] == o.fileSep+"+"
		i++
		var vals []string
		for ; i < len(words) && !o.isSep(words[i]); i++ {
			vals = append(vals, words[i])
		}
		if fromFile {
			files = true
			continue
		}
		sources = append(sources, vals)
	}
	text := strings.Join(template, " ")
	if o.quote {
		text = shellJoin(template)
	}
	var l launch
	job := func(values []string) payload {
		if len(template) == 0 {
			return payload{text: strings.Join(values, " ")}
		}
		return payload{text: fillTemplate(text, o.replace, values)}
	}
	switch {
	case o.pipe:
		if len(template) > 0 {
			l.payloads = append(l.payloads, payload{text: text})
			l.stdin = func(in string) []payload {
				return []payload{{text: "printf %s " + quoteWord(in) + " | " + text}}
			}
		}
		return l
	case len(sources) == 0 && !files:
		// The values are the lines of standard input.
		l.stdin = func(in string) []payload {
			var out []payload
			for _, line := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
				out = append(out, job([]string{line}))
			}
			if o.many {
				out = append(out, job(strings.Fields(in)))
			}
			return out
		}
		if len(template) > 0 {
			l.payloads = append(l.payloads, payload{text: text})
		}
		return l
	case len(sources) == 0:
		if len(template) > 0 {
			l.payloads = append(l.payloads, payload{text: text}) // values from files unknown here
		}
		return l
	}
	for _, values := range combinations(sources) {
		l.payloads = append(l.payloads, job(values))
	}
	if o.many {
		var all []string
		for _, s := range sources {
			all = append(all, s...)
		}
		l.payloads = append(l.payloads, job(all))
	}
	return l
}

func (o parallelOptions) isSep(w string) bool {
	return w == o.argSep || w == o.argSep+"+" || w == o.fileSep || w == o.fileSep+"+"
}

// combinations is every choice of one value from each source, in order,
// or, past parallelMax of them, each value of each source with the
// first values of the others.
func combinations(sources [][]string) [][]string {
	n := 1
	for _, s := range sources {
		n *= max(len(s), 1)
		if n > parallelMax {
			break
		}
	}
	if n > parallelMax {
		var out [][]string
		firsts := make([]string, 0, len(sources))
		for _, s := range sources {
			if len(s) > 0 {
				firsts = append(firsts, s[0])
			}
		}
		for k, s := range sources {
			for _, v := range s {
				c := append([]string(nil), firsts...)
				if k < len(c) {
					c[k] = v
				}
				out = append(out, c)
			}
		}
		return out
	}
	out := [][]string{nil}
	for _, s := range sources {
		if len(s) == 0 {
			continue
		}
		var next [][]string
		for _, c := range out {
			for _, v := range s {
				next = append(next, append(append([]string(nil), c...), v))
			}
		}
		out = next
	}
	return out
}

// fillTemplate puts the quoted values in a template's replacement
// strings ({} and its forms, {n} the n-th value, the -I string), or,
// when it has none, after it.
func fillTemplate(text, replace string, values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = quoteWord(v)
	}
	all := strings.Join(quoted, " ")
	found := false
	out := reParallelReplace.Get().ReplaceAllStringFunc(text, func(m string) string {
		found = true
		sub := reParallelReplace.Get().FindStringSubmatch(m)
		if sub[1] != "" {
			n := 0
			for _, c := range sub[1] {
				n = n*10 + int(c-'0')
			}
			if n >= 1 && n <= len(quoted) {
				return quoted[n-1]
			}
		}
		return all
	})
	if replace != "{}" && replace != "" && strings.Contains(out, replace) {
		found = true
		out = strings.ReplaceAll(out, replace, all)
	}
	if !found {
		out += " " + all
	}
	return out
}
