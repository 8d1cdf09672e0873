package redact

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// The by-value scan. Every run of gramLen bytes of every form of every
// known secret is indexed, so a cut-off secret (cut -c1-20) is found as well
// as a whole one. The text is read with a rolling probe: the probeLen bytes
// at every probeStep-th position are looked up in a Bloom filter of all
// probeLen-byte runs of the forms. Any gramLen run holds one such probe, so
// nothing is missed; a probe that hits is checked against the exact index.
// Text without secrets costs one filter lookup per probeStep bytes.
const (
	gramLen   = 12
	probeLen  = 8
	probeStep = gramLen - probeLen + 1
)

// gram is gramLen bytes, as a map key.
type gram struct {
	lo uint64
	hi uint32
}

type index struct {
	secrets []string          // what was added, for the next Add
	known   map[string]bool   // the same, as a set
	grams   map[gram]struct{} // every gramLen run of every form
	bloom   []uint64          // every probeLen run, two bits in one word
	shift   uint              // 64 - log2 of the filter's size in words
	short   [][]byte          // forms shorter than gramLen, matched whole
	scratch sync.Pool         // *scratch: joiner-free copies of text
}

func newIndex(secrets []string) *index {
	x := &index{secrets: secrets, known: map[string]bool{}}
	var all []string
	probes, grams := 0, 0
	for _, s := range secrets {
		x.known[s] = true
		for _, f := range forms(s) {
			f = string(stripJoiners(f, nil))
			switch {
			case len(f) >= gramLen:
				all = append(all, f)
				probes += len(f) - probeLen + 1
				grams += len(f) - gramLen + 1
			case len(f) >= minSecret:
				x.short = append(x.short, []byte(f))
			}
		}
	}
	x.grams = make(map[gram]struct{}, grams)
	slices.SortFunc(x.short, bytes.Compare)
	x.short = slices.CompactFunc(x.short, bytes.Equal)
	// About 32 bits per probe: few false hits, and a filter that stays in
	// the processor's cache (128 KB for the 30,000 probes of a dozen keys).
	words := max(64, 1<<bits.Len(uint(probes/2)))
	words = min(words, 1<<18)
	x.bloom = make([]uint64, words)
	x.shift = uint(64 - bits.TrailingZeros(uint(words)))
	for _, f := range all {
		fb := []byte(f)
		for i := 0; i+gramLen <= len(f); i++ {
			x.grams[gramAt(fb, i)] = struct{}{}
		}
		for i := 0; i+probeLen <= len(f); i++ {
			w, m := x.slot(load64(f, i))
			x.bloom[w] |= m
		}
	}
	return x
}

// slot returns the filter word of probe v and the two bits it sets there:
// one memory access per lookup.
func (x *index) slot(v uint64) (word uint64, mask uint64) {
	h := (v ^ v>>29) * 0xbf58476d1ce4e5b9
	return (v * 0x9e3779b97f4a7c15) >> x.shift, 1<<(h>>58) | 1<<(h>>52&63)
}

func (x *index) maybe(v uint64) bool {
	w, m := x.slot(v)
	return x.bloom[w]&m == m
}

func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

func (x *index) has(b []byte, i int) bool {
	_, ok := x.grams[gramAt(b, i)]
	return ok
}

func gramAt(b []byte, i int) gram {
	return gram{binary.LittleEndian.Uint64(b[i:]), binary.LittleEndian.Uint32(b[i+8:])}
}

type span struct{ start, end int }

// find returns the spans of b that are known secrets, runs of gramLen or
// more bytes of one, or whole short forms, in order and merged.
func (x *index) find(b []byte) []span {
	var out []span
	for p := 0; p+probeLen <= len(b); {
		next := p + probeStep
		if x.maybe(binary.LittleEndian.Uint64(b[p:])) {
			for st := max(0, p-probeStep+1); st <= p && st+gramLen <= len(b); st++ {
				if !x.has(b, st) {
					continue
				}
				// A secret goes on: step a whole gram at a time, then a
				// byte at a time to the end of its last gram. Starts
				// past p are covered; the probes go on from the first
				// start that can reach past the end.
				end := st + gramLen
				for end+gramLen <= len(b) && x.has(b, end) {
					end += gramLen
				}
				for end < len(b) && x.has(b, end-gramLen+1) {
					end++
				}
				out = addSpan(out, span{st, end})
				next = max(next, end-gramLen+probeStep)
				break
			}
		}
		p = next
	}
	if len(x.short) == 0 {
		return out
	}
	var more []span
	for _, f := range x.short {
		for i := 0; ; {
			k := bytes.Index(b[i:], f)
			if k < 0 {
				break
			}
			more = append(more, span{i + k, i + k + len(f)})
			i += k + 1
		}
	}
	if more == nil {
		return out
	}
	all := append(out, more...)
	slices.SortFunc(all, func(a, b span) int { return a.start - b.start })
	var merged []span
	for _, sp := range all {
		merged = addSpan(merged, sp)
	}
	return merged
}

// addSpan appends sp to spans ordered by start, merging it with the last
// one when they overlap or touch.
func addSpan(spans []span, sp span) []span {
	if k := len(spans) - 1; k >= 0 && sp.start <= spans[k].end {
		spans[k] = span{min(spans[k].start, sp.start), max(spans[k].end, sp.end)}
		return spans
	}
	return append(spans, sp)
}

// cut records that joiners were removed before position at of a stripped
// text: from there on, the original position is at+shift.
type cut struct{ at, shift int }

// mask masks the known secrets in s. Joiners (line breaks, escapes,
// zero-width characters) are looked through: the scan reads a copy of s
// without them, and a match covers the joiners inside it.
func (x *index) mask(s string) string {
	sc, _ := x.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	buf, cuts := stripFrom(s, 0, sc.buf[:0], sc.cuts[:0])
	spans := x.find(buf)
	sc.buf, sc.cuts = buf, cuts
	for k := range spans {
		spans[k] = span{original(cuts, spans[k].start), original(cuts, spans[k].end-1) + 1}
	}
	if cap(sc.buf) <= maxScratch {
		x.scratch.Put(sc)
	}
	return replaceSpans(s, spans)
}

// maxScratch bounds the memory kept for the next call: a rare huge text
// does not stay in memory after it.
const maxScratch = 1 << 20

// scratch is the memory one mask call works in.
type scratch struct {
	buf  []byte
	cuts []cut
}

// original maps a position of the stripped text back to s.
func original(cuts []cut, at int) int {
	k, found := slices.BinarySearchFunc(cuts, at, func(c cut, at int) int { return c.at - at })
	if !found {
		k--
	}
	if k < 0 {
		return at
	}
	return at + cuts[k].shift
}

// stripJoiners returns s without joiners, appended to buf.
func stripJoiners(s string, buf []byte) []byte {
	buf, _ = stripFrom(s, 0, buf, nil)
	return buf
}

// stripFrom appends s[i:] to buf without its joiners, recording a cut
// after each one removed.
func stripFrom(s string, i int, buf []byte, cuts []cut) ([]byte, []cut) {
	for i < len(s) {
		j := nextJoinerStart(s, i)
		buf = append(buf, s[i:j]...)
		if j == len(s) {
			break
		}
		n, _ := joinerAt(s, j)
		if n == 0 {
			buf = append(buf, s[j])
			i = j + 1
			continue
		}
		i = j + n
		if k := len(cuts) - 1; k >= 0 && cuts[k].at == len(buf) {
			cuts[k].shift = i - len(buf) // joiners in a row: one cut
			continue
		}
		cuts = append(cuts, cut{len(buf), i - len(buf)})
	}
	return buf, cuts
}

// nextJoinerStart returns the index of the first byte at or after i that
// can start a joiner, or len(s). It tests eight bytes at a time.
func nextJoinerStart(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		// A control byte, DEL, a backslash, or any byte of a multi-byte
		// character (zero-width characters are among those).
		zero := func(y uint64) uint64 { return (y - ones) & ^y }
		if ((x-0x20*ones)|zero(x^0x7f*ones)|zero(x^'\\'*ones)|x)&highs != 0 {
			break
		}
	}
	for i < len(s) && !joinerStart[s[i]] {
		i++
	}
	return i
}

// replaceSpans masks the spans of s. A span that starts with a token
// format's public prefix keeps it, as the shape rules do.
func replaceSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		if p := publicPrefix(s[sp.start:sp.end]); p != "" && len(p) < sp.end-sp.start {
			b.WriteString(prefixed(p))
		} else {
			b.WriteString(Marker)
		}
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String()
}
