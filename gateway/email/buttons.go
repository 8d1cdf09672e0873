package email

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/gateway"
)

// choice is a button as mail shows it: the word to reply with, the rest
// of its label, and the data a reply with the word clicks.
type choice struct {
	word, rest, data string
}

// choicesOf gives every button a reply word: its label's first word in
// lower case ("Always (admins only)" is "always"), or its number where
// that word is not a plain word or is taken by an earlier button.
func choicesOf(rows [][]gateway.Button) []choice {
	var out []choice
	taken := map[string]bool{}
	n := 0
	for _, row := range rows {
		for _, b := range row {
			n++
			first, rest, _ := strings.Cut(strings.TrimSpace(b.Label), " ")
			word := strings.ToLower(first)
			if word == "" || !isWord(word) || taken[word] {
				word, rest = strconv.Itoa(n), "("+b.Label+")"
			}
			taken[word] = true
			out = append(out, choice{word: word, rest: strings.TrimSpace(rest), data: b.Data})
		}
	}
	return out
}

func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// renderChoices is the line under a mail that stands for its buttons:
// "Reply with one word: once, session, always (admins only) or deny."
func renderChoices(cs []choice) string {
	if len(cs) == 0 {
		return ""
	}
	items := make([]string, len(cs))
	for i, c := range cs {
		items[i] = strings.TrimSpace(c.word + " " + c.rest)
	}
	list := items[0]
	if len(items) > 1 {
		list = strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
	}
	return "Reply with one word: " + list + "."
}

// picked is the button a reply chose by its first word, if any;
// "approve" is the first button's synonym where the first is "once".
func picked(text string, cs []choice) (choice, bool) {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	fields := strings.Fields(first)
	if len(fields) == 0 {
		return choice{}, false
	}
	word := strings.ToLower(strings.TrimFunc(fields[0], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
	if word == "approve" || word == "approved" || word == "yes" {
		word = "once"
	}
	for _, c := range cs {
		if c.word == word {
			return c, true
		}
	}
	return choice{}, false
}

// rememberCard keeps a sent mail's choices for the replies to it (the
// newest maxCards; a question outlives no restart anyway).
func (a *Adapter) rememberCard(id string, cs []choice) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cards[id] = cs
	a.cardIDs = append(a.cardIDs, id)
	if len(a.cardIDs) > maxCards {
		delete(a.cards, a.cardIDs[0])
		a.cardIDs = a.cardIDs[1:]
	}
}

// cardChoice is the choice a mail made by replying to a card, if it did;
// each such mail clicks once, however often it is delivered.
func (a *Adapter) cardChoice(p *parsed) (choice, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cs, ok := a.cards[p.inReplyTo]
	if !ok {
		return choice{}, false
	}
	c, ok := picked(p.text, cs)
	if !ok {
		return choice{}, false
	}
	if a.clicked[p.messageID] {
		return choice{}, false
	}
	if len(a.clicked) >= 4*maxCards {
		a.clicked = map[string]bool{}
	}
	a.clicked[p.messageID] = true
	return c, true
}
