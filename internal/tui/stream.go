package tui

import "strings"

// stream is an answer arriving in deltas, rendered by blocks: each
// finished markdown block (a paragraph, list, table or code block ended
// by a blank line outside a code fence) is rendered once; only the block
// still arriving is rendered again, when the caller asks (throttled).
type stream struct {
	text      strings.Builder
	committed int  // bytes of text rendered into stable
	scanned   int  // bytes scanned for block ends
	inFence   bool // the scan is inside a ``` or ~~~ fence
	stable    []string
	tail      []string
	tailText  string // what tail was rendered from
	width     int
}

func (s *stream) add(delta string) { s.text.WriteString(delta) }

// String is the whole text so far.
func (s *stream) String() string { return s.text.String() }

// commit renders the blocks that ended since the last call.
func (s *stream) commit(md *markdown, width int) {
	if width != s.width {
		s.rerender(md, width)
	}
	text := s.text.String()
	for {
		nl := strings.IndexByte(text[s.scanned:], '\n')
		if nl < 0 {
			return
		}
		line := text[s.scanned : s.scanned+nl]
		end := s.scanned + nl + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			s.inFence = !s.inFence
		case trimmed == "" && !s.inFence && strings.TrimSpace(text[s.committed:s.scanned]) != "":
			s.appendStable(md.render(text[s.committed:s.scanned], width))
			s.committed = end
		}
		s.scanned = end
	}
}

func (s *stream) appendStable(lines []string) {
	if len(lines) == 0 {
		return
	}
	if len(s.stable) > 0 {
		s.stable = append(s.stable, "")
	}
	s.stable = append(s.stable, lines...)
}

// rerender renders the committed text again at a new width.
func (s *stream) rerender(md *markdown, width int) {
	s.width = width
	s.stable = nil
	if done := s.text.String()[:s.committed]; strings.TrimSpace(done) != "" {
		s.stable = md.render(done, width)
	}
	s.tailText = "\x00" // render the tail again too
}

// renderTail renders the block still arriving; it reports whether the
// lines changed.
func (s *stream) renderTail(md *markdown, width int) bool {
	tail := s.text.String()[s.committed:]
	if tail == s.tailText && width == s.width {
		return false
	}
	s.tailText = tail
	if strings.TrimSpace(tail) == "" {
		s.tail = nil
	} else {
		s.tail = md.render(tail, width)
	}
	return true
}

// lines is what to show: the stable blocks and the block arriving.
func (s *stream) lines() []string {
	if len(s.tail) == 0 {
		return s.stable
	}
	out := make([]string, 0, len(s.stable)+1+len(s.tail))
	out = append(out, s.stable...)
	if len(out) > 0 {
		out = append(out, "")
	}
	return append(out, s.tail...)
}
