package telegramtest

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Entity is one formatting entity of a message, with Telegram's offsets
// and lengths in UTF-16 code units.
type Entity struct {
	Type   string // "bold", "italic", "code", "pre", "text_link", "mention", "bot_command", ...
	Offset int
	Length int
	URL    string `json:",omitempty"` // text_link only
}

// htmlTags maps the tags of Telegram's HTML parse mode to entity types.
var htmlTags = map[string]string{
	"b": "bold", "strong": "bold",
	"i": "italic", "em": "italic",
	"u": "underline", "ins": "underline",
	"s": "strikethrough", "strike": "strikethrough", "del": "strikethrough",
	"span": "spoiler", "tg-spoiler": "spoiler",
	"a":          "text_link",
	"code":       "code",
	"pre":        "pre",
	"blockquote": "blockquote",
	"tg-emoji":   "custom_emoji",
}

// parseHTML reads text in Telegram's HTML parse mode and returns what a
// reader sees and its entities. Like Telegram it refuses an unknown tag,
// an end tag that closes nothing open, and a tag left open, with the
// "can't parse entities" reasons Telegram gives. A '&' that starts no
// entity is kept as it is, as Telegram does.
func parseHTML(src string) (string, []Entity, error) {
	type open struct {
		name  string
		start int // UTF-16 offset
		url   string
	}
	var (
		out      strings.Builder
		units    int
		stack    []open
		entities []Entity
	)
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case '<':
			end := strings.IndexByte(src[i:], '>')
			if end < 0 {
				return "", nil, fmt.Errorf("Unclosed start tag at byte offset %d", i)
			}
			tag := src[i+1 : i+end]
			if strings.HasPrefix(tag, "/") {
				name := strings.ToLower(strings.TrimSpace(tag[1:]))
				if len(stack) == 0 {
					return "", nil, fmt.Errorf("Unexpected end tag at byte offset %d", i)
				}
				top := stack[len(stack)-1]
				if name != top.name {
					return "", nil, fmt.Errorf("Can't find end tag corresponding to start tag \"%s\"", top.name)
				}
				stack = stack[:len(stack)-1]
				if units > top.start {
					entities = append(entities, Entity{Type: htmlTags[top.name], Offset: top.start, Length: units - top.start, URL: top.url})
				}
			} else {
				name, attrs, _ := strings.Cut(tag, " ")
				name = strings.ToLower(name)
				if _, ok := htmlTags[name]; !ok {
					return "", nil, fmt.Errorf("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				if name == "span" && !strings.Contains(attrs, "tg-spoiler") {
					return "", nil, fmt.Errorf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", i)
				}
				stack = append(stack, open{name: name, start: units, url: attribute(attrs, "href")})
			}
			i += end + 1
		case '&':
			r, n := htmlEntity(src[i:])
			out.WriteRune(r)
			units += len(utf16.Encode([]rune{r}))
			i += n
		default:
			r, n := utf8.DecodeRuneInString(src[i:])
			out.WriteString(src[i : i+n])
			units += len(utf16.Encode([]rune{r}))
			i += n
		}
	}
	if len(stack) > 0 {
		return "", nil, fmt.Errorf("Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1].name)
	}
	return out.String(), entities, nil
}

// htmlEntity decodes the character entity at the start of s, returning
// the character and how many bytes it took; a '&' that starts no known
// entity stands for itself.
func htmlEntity(s string) (rune, int) {
	semi := strings.IndexByte(s, ';')
	if semi < 0 || semi > 10 {
		return '&', 1
	}
	name := s[1:semi]
	switch name {
	case "lt":
		return '<', semi + 1
	case "gt":
		return '>', semi + 1
	case "amp":
		return '&', semi + 1
	case "quot":
		return '"', semi + 1
	}
	if strings.HasPrefix(name, "#x") || strings.HasPrefix(name, "#X") {
		if n, err := strconv.ParseUint(name[2:], 16, 32); err == nil && utf8.ValidRune(rune(n)) {
			return rune(n), semi + 1
		}
	} else if strings.HasPrefix(name, "#") {
		if n, err := strconv.ParseUint(name[1:], 10, 32); err == nil && utf8.ValidRune(rune(n)) {
			return rune(n), semi + 1
		}
	}
	return '&', 1
}

// attribute returns the value of one attribute in a tag's attribute text.
func attribute(attrs, name string) string {
	i := strings.Index(attrs, name+"=")
	if i < 0 {
		return ""
	}
	v := attrs[i+len(name)+1:]
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : end+1]
		}
	}
	v, _, _ = strings.Cut(v, " ")
	return v
}

// userEntities finds what Telegram marks in a person's text: @mentions
// and /commands (a command only at the start of a word).
func userEntities(text string) []Entity {
	var entities []Entity
	units := 0
	runes := []rune(text)
	for i := 0; i < len(runes); {
		r := runes[i]
		startOfWord := i == 0 || isSpace(runes[i-1])
		if (r == '@' || (r == '/' && startOfWord)) && i+1 < len(runes) && isWordRune(runes[i+1]) {
			j := i + 1
			for j < len(runes) && (isWordRune(runes[j]) || (r == '/' && runes[j] == '@')) {
				j++
			}
			length := len(utf16.Encode(runes[i:j]))
			typ := "mention"
			if r == '/' {
				typ = "bot_command"
			}
			entities = append(entities, Entity{Type: typ, Offset: units, Length: length})
			units += length
			i = j
			continue
		}
		units += len(utf16.Encode([]rune{r}))
		i++
	}
	return entities
}

func isWordRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func isSpace(r rune) bool { return r == ' ' || r == '\n' || r == '\t' }
