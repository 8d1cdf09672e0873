package session

import (
	"slices"
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/internal/lazy"
)

// ftsQuery turns free text into an FTS5 query that cannot be a syntax
// error. Words are quoted (so "foo-bar", "c++" or "NEAR" are searched as
// text, not syntax); "quoted phrases" stay phrases; a trailing * keeps
// prefix search; AND, OR and NOT in capitals between two terms stay
// operators. Terms are joined with AND, or OR when any is true. It
// returns "" when no searchable word remains, the number of terms, and
// whether the user wrote an operator.
func ftsQuery(text string, or bool) (q string, nterms int, explicit bool) {
	type term struct {
		text   string
		prefix bool
		op     bool
		phrase bool
	}
	var terms []term
	rest := text
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			phrase := rest[1:]
			if end >= 0 {
				phrase, rest = rest[1:1+end], rest[2+end:]
			} else {
				rest = ""
			}
			if hasWordChar(phrase) {
				prefix := strings.HasPrefix(rest, "*")
				terms = append(terms, term{text: phrase, prefix: prefix, phrase: true})
			}
			continue
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		word := rest
		if end >= 0 {
			word, rest = rest[:end], rest[end:]
		} else {
			rest = ""
		}
		switch word {
		case "AND", "OR", "NOT":
			terms = append(terms, term{text: word, op: true})
			continue
		}
		prefix := strings.HasSuffix(word, "*")
		word = strings.Trim(word, `*()^:"{}+`)
		if hasWordChar(word) {
			terms = append(terms, term{text: word, prefix: prefix})
		}
	}

	// Words like "the" match most messages: they add nothing to a search
	// but make it scan most of the index. Drop them unless nothing else
	// is left, and keep them in phrases and in operator expressions.
	hasOp, content := false, 0
	for _, t := range terms {
		hasOp = hasOp || t.op
		if !t.op && (t.phrase || t.prefix || !stopword(t.text)) {
			content++
		}
	}
	if !hasOp && content > 0 {
		terms = slices.DeleteFunc(terms, func(t term) bool { return !t.phrase && !t.prefix && stopword(t.text) })
	}

	var b strings.Builder
	lastWasTerm := false
	for i, t := range terms {
		if t.op {
			// Keep an operator only between two terms.
			if lastWasTerm && i+1 < len(terms) && !terms[i+1].op {
				b.WriteString(" " + t.text + " ")
				explicit = true
				lastWasTerm = false
			}
			continue
		}
		if lastWasTerm {
			if or {
				b.WriteString(" OR ")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(`"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`)
		if t.prefix {
			b.WriteString(" *")
		}
		lastWasTerm = true
		nterms++
	}
	return strings.TrimSpace(b.String()), nterms, explicit
}

// stopwords are very common English words, lower case.
var stopwords = lazy.Of(buildStopwords)

func buildStopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could did do does for from had has
		have how i if in into is it its me my of on or our so that the their then there these this
		to was we were what when where which who why will with would you your`) {
		m[w] = true
	}
	return m
}

// stopword reports whether a term (a single word, not a phrase) is one of
// the stopwords.
func stopword(term string) bool { return stopwords.Get()[strings.ToLower(term)] }

func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}
