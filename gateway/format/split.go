package format

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Split cuts a markdown answer into chunks of at most limit runes each,
// for a platform's message limit. It cuts where the text allows, in this
// order of preference: at a paragraph boundary (a blank line outside
// code), at a line end, at a space (a line longer than the limit), and
// only when a span of text has no space at all, between two runes.
//
// A cut never falls inside an inline span (`code`, **bold**, _italic_,
// ~~strike~~, [link](url)) unless the span alone is longer than the
// limit. A code block that must be cut is closed with its fence, and the
// next chunk reopens it with the same fence and language; a table that
// must be cut repeats its header in the next chunk. Chunks hold no blank
// lines at their ends; blank input gives no chunk. A limit of 0 or less
// means no limit.
func Split(md string, limit int) []string {
	md = trimBlankLines(strings.ReplaceAll(md, "\r\n", "\n"))
	if md == "" {
		return nil
	}
	if limit <= 0 || utf8.RuneCountInString(md) <= limit {
		return []string{md}
	}
	return newSplitter(md, limit, nil).run()
}

// trimBlankLines drops blank lines (and trailing spaces) at both ends,
// keeping the indentation of the first line.
func trimBlankLines(s string) string {
	s = strings.TrimRight(s, " \t\n")
	for {
		l, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(l) != "" {
			break
		}
		s = rest
	}
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// Cut priorities, best first.
const (
	atParagraph = 3
	atLine      = 2
	atSpace     = 1 // a space outside inline spans, or in code
	atAnySpace  = 0 // a space or line end inside an inline span
)

// cut is a place a chunk may end.
type cut struct {
	p, q   int    // the chunk ends at p; the next one starts at q
	close  string // appended to the chunk: the fence of a code block cut
	reopen string // put before the next chunk: the fence, or a table's header
}

type splitter struct {
	d     *doc
	src   string
	limit int
	// measure, when set, is the length of a chunk as the platform gets
	// it (converted); chunks must fit both as markdown and measured.
	measure func(string) int
	runes   []int // runes before each byte offset
	cuts    [atParagraph + 1][]cut
	// per line: the fence (index+1 into fences) or table it is part of
	fenceOf []int
	fences  []fence
	// lineOK[i] is false when the line end after line i may not be cut
	lineOK []bool
	tables map[int]*tableSpan
}

// tableSpan is a table's lines: header, delimiter row, last row.
type tableSpan struct{ header, last int }

func newSplitter(md string, limit int, measure func(string) int) *splitter {
	s := &splitter{d: parse(md), src: md, limit: limit, measure: measure, tables: map[int]*tableSpan{}}
	s.runes = make([]int, len(md)+1)
	n := 0
	for i := range md {
		s.runes[i] = n
		n++
	}
	// bytes inside a rune share the count of the rune's start
	for i := 1; i < len(md); i++ {
		if !utf8.RuneStart(md[i]) {
			s.runes[i] = s.runes[i-1]
		}
	}
	s.runes[len(md)] = n
	s.fenceOf = make([]int, len(s.d.lines))
	s.fences = fences(s.d)
	for i, f := range s.fences {
		for l := f.open; l <= f.end; l++ {
			s.fenceOf[l] = i + 1
		}
	}
	s.lineOK = make([]bool, len(s.d.lines))
	for i := range s.lineOK {
		s.lineOK[i] = true
	}
	s.markSpans()
	s.lineCuts()
	s.spaceCuts()
	for i := range s.cuts {
		sort.Slice(s.cuts[i], func(a, b int) bool { return s.cuts[i][a].p < s.cuts[i][b].p })
	}
	return s
}

// markSpans forbids the line ends that lie inside an inline span, inside
// a setext heading or between a table's header, delimiter row and first
// row, and records tables.
func (s *splitter) markSpans() {
	d := s.d
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table:
			h := d.lineOf(blockStart(n))
			t := &tableSpan{header: h, last: d.lineOf(n.LastChild().Pos())}
			for l := h; l <= t.last; l++ {
				s.tables[l] = t
			}
			s.lineOK[h] = false
			if h+1 < len(s.lineOK) {
				s.lineOK[h+1] = false
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			safe := map[int]bool{}
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok && (t.SoftLineBreak() || t.HardLineBreak()) {
					safe[d.lineOf(t.Segment.Start)] = true
				}
			}
			for k := 0; k < lines.Len()-1; k++ {
				if l := d.lineOf(lines.At(k).Start); !safe[l] {
					s.lineOK[l] = false
				}
			}
			if h, ok := n.(*ast.Heading); ok && d.src[h.Pos()] != '#' {
				// setext: the underline belongs to the text above it
				s.lineOK[d.lineOf(lines.At(lines.Len()-1).Start)] = false
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// lineCuts adds a cut at each paragraph boundary and each line end that
// allows one.
func (s *splitter) lineCuts() {
	d := s.d
	n := len(d.lines)
	blank := func(i int) bool { return s.fenceOf[i] == 0 && d.blank(i) }
	for i := 0; i < n-1; i++ {
		if blank(i) {
			continue
		}
		end := d.lineEnd(i)
		if blank(i + 1) {
			j := i + 1
			for j < n && blank(j) {
				j++
			}
			if j < n {
				s.cuts[atParagraph] = append(s.cuts[atParagraph], cut{p: end, q: d.lines[j]})
			}
			continue
		}
		if !s.lineOK[i] {
			continue
		}
		c := cut{p: end, q: d.lines[i+1]}
		if k := s.fenceOf[i]; k != 0 && k == s.fenceOf[i+1] {
			f := s.fences[k-1]
			if i == f.open || f.closed && i+1 == f.end {
				continue // never leave a fence empty
			}
			c.close, c.reopen = f.closer, f.opener
		}
		if t := s.tables[i]; t != nil && t == s.tables[i+1] {
			c.reopen = d.line(t.header) + "\n" + d.line(t.header+1)
		}
		s.cuts[atLine] = append(s.cuts[atLine], c)
	}
}

// spaceCuts adds a cut at each space: at atSpace where no inline span
// holds it (or in code), at atAnySpace otherwise (and at the line ends
// inside spans).
func (s *splitter) spaceCuts() {
	d := s.d
	good := map[int]bool{}
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Type() != ast.TypeInline {
			return ast.WalkContinue, nil
		}
		if t, ok := n.(*ast.Text); ok && t.Parent().Type() == ast.TypeBlock {
			for i := t.Segment.Start; i < t.Segment.Stop; i++ {
				good[i] = true
			}
		}
		return ast.WalkSkipChildren, nil
	})
	for i := 0; i < len(s.src); i++ {
		c := s.src[i]
		if c != ' ' && c != '\t' && c != '\n' {
			continue
		}
		j := i
		for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
			j++
		}
		if c == '\n' {
			j = i + 1
		}
		l := d.lineOf(i)
		k := s.fenceOf[l]
		inCode := k != 0 && l != s.fences[k-1].open && !(s.fences[k-1].closed && l == s.fences[k-1].end)
		cu := cut{p: i, q: j}
		if inCode {
			cu.close, cu.reopen = s.fences[k-1].closer, s.fences[k-1].opener
		}
		switch {
		case c == '\n':
			if !s.lineOK[l] && !inCode {
				s.cuts[atAnySpace] = append(s.cuts[atAnySpace], cu)
			}
		case good[i] || inCode:
			s.cuts[atSpace] = append(s.cuts[atSpace], cu)
		default:
			s.cuts[atAnySpace] = append(s.cuts[atAnySpace], cu)
		}
		if c != '\n' {
			i = j - 1
		}
	}
}

func (s *splitter) run() []string {
	var out []string
	pos, reopen := 0, ""
	for pos < len(s.src) {
		if utf8.RuneCountInString(reopen)+2 > s.limit {
			reopen = "" // a limit too small for the fence: text alone
		}
		if s.fits(pos, len(s.src), reopen, "") {
			out = s.emit(out, pos, len(s.src), reopen, "")
			break
		}
		c, ok := s.best(pos, reopen)
		if !ok {
			if c, ok = s.runeCut(pos, reopen); !ok && reopen != "" {
				reopen = "" // the repeated fence or header leaves no room
				continue
			}
		}
		out = s.emit(out, pos, c.p, reopen, c.close)
		pos, reopen = c.q, c.reopen
		for reopen == "" && pos < len(s.src) && s.src[pos] == '\n' {
			pos++
		}
	}
	return out
}

// body returns where the chunk's own text ends: p less trailing spaces.
func (s *splitter) body(pos, p int) int {
	return pos + len(strings.TrimRight(s.src[pos:p], " \t\n"))
}

// piece is the chunk from pos to p, with the fences around it.
func (s *splitter) piece(pos, p int, reopen, close string) string {
	text := s.src[pos:s.body(pos, p)]
	if reopen != "" {
		text = reopen + "\n" + text
	}
	if close != "" {
		text += "\n" + close
	}
	return text
}

// rawSize is the length in runes of the chunk from pos to p.
func (s *splitter) rawSize(pos, p int, reopen, close string) int {
	n := s.runes[s.body(pos, p)] - s.runes[pos]
	if reopen != "" {
		n += utf8.RuneCountInString(reopen) + 1
	}
	if close != "" {
		n += utf8.RuneCountInString(close) + 1
	}
	return n
}

// fits reports whether the chunk from pos to p is within the limit: as
// markdown, and once measured (converted) when the splitter measures.
func (s *splitter) fits(pos, p int, reopen, close string) bool {
	if s.rawSize(pos, p, reopen, close) > s.limit {
		return false
	}
	return s.measure == nil || s.measure(s.piece(pos, p, reopen, close)) <= s.limit
}

func (s *splitter) emit(out []string, pos, p int, reopen, close string) []string {
	if strings.TrimSpace(s.src[pos:s.body(pos, p)]) == "" {
		return out
	}
	return append(out, s.piece(pos, p, reopen, close))
}

// best returns the farthest cut of the best priority that leaves a
// chunk within the limit.
func (s *splitter) best(pos int, reopen string) (cut, bool) {
	for prio := atParagraph; prio >= atAnySpace; prio-- {
		cuts := s.cuts[prio]
		var within []cut // the cuts whose chunk fits as markdown
		for i := sort.Search(len(cuts), func(i int) bool { return cuts[i].p > pos }); i < len(cuts); i++ {
			c := cuts[i]
			if s.runes[c.p]-s.runes[pos] > s.limit {
				break
			}
			if s.body(pos, c.p) > pos && s.rawSize(pos, c.p, reopen, c.close) <= s.limit {
				within = append(within, c)
			}
		}
		if len(within) == 0 {
			continue
		}
		if s.measure == nil {
			return within[len(within)-1], true
		}
		// A converted chunk grows with its markdown: search for the
		// farthest cut whose conversion still fits.
		found := -1
		for lo, hi := 0, len(within)-1; lo <= hi; {
			mid := (lo + hi) / 2
			c := within[mid]
			if s.fits(pos, c.p, reopen, c.close) {
				found, lo = mid, mid+1
			} else {
				hi = mid - 1
			}
		}
		if found >= 0 {
			return within[found], true
		}
	}
	return cut{}, false
}

// runeCut is the last resort: as many runes as fit, keeping the code
// block open around the cut when its fences leave room. It reports false
// when not even one rune fits after reopen (the cut then holds one).
func (s *splitter) runeCut(pos int, reopen string) (cut, bool) {
	var c cut
	if l := s.d.lineOf(pos); s.fenceOf[l] != 0 {
		f := s.fences[s.fenceOf[l]-1]
		if l != f.open && !(f.closed && l == f.end) {
			c.close, c.reopen = f.closer, f.opener
		}
	}
	n, ok := s.runesFitting(pos, reopen, c.close)
	if !ok && c.close != "" {
		// Not even the fences fit: the chunk is text alone.
		c.close, c.reopen = "", ""
		n, ok = s.runesFitting(pos, reopen, "")
	}
	c.p = pos
	for range max(n, 1) {
		_, w := utf8.DecodeRuneInString(s.src[c.p:])
		c.p += w
	}
	c.q = c.p
	return c, ok
}

// runesFitting returns how many runes from pos fit in a chunk between
// reopen and close, and false when none does.
func (s *splitter) runesFitting(pos int, reopen, close string) (int, bool) {
	room := s.limit - s.rawSize(pos, pos, reopen, close)
	var ends []int // ends[n-1] is the offset after n runes
	for p := pos; len(ends) < room && p < len(s.src); {
		_, w := utf8.DecodeRuneInString(s.src[p:])
		p += w
		ends = append(ends, p)
	}
	if s.measure == nil {
		return len(ends), len(ends) > 0
	}
	n := 0
	for lo, hi := 1, len(ends); lo <= hi; {
		mid := (lo + hi) / 2
		if s.measure(s.piece(pos, ends[mid-1], reopen, close)) <= s.limit {
			n, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return n, n > 0
}
