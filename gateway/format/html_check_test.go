package format

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

var (
	tagRe    = regexp.MustCompile(`^<(/?)([a-z]+)((?: [a-z]+="[^"<>]*")*)>`)
	entityRe = regexp.MustCompile(`^&(amp|lt|gt|quot);`)
	hrefRe   = regexp.MustCompile(`^ href="[^"<>]+"$`)
)

// checkTelegramHTML checks s against Telegram's HTML parse mode: only
// its tags, each closed in order, attributes only where allowed, every
// &, < and > of the text escaped, and its nesting rules (nothing inside
// code or pre; code in no other entity than a quote; pre, and quotes, in
// none; no link in a link).
func checkTelegramHTML(s string) error {
	var open []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			m := tagRe.FindStringSubmatch(s[i:])
			if m == nil {
				return fmt.Errorf("raw < at %d: %q", i, around(s, i))
			}
			closing, name, attrs := m[1] == "/", m[2], m[3]
			if closing {
				if len(open) == 0 || open[len(open)-1] != name {
					return fmt.Errorf("</%s> closes %v at %d: %q", name, open, i, around(s, i))
				}
				open = open[:len(open)-1]
				i += len(m[0])
				continue
			}
			if err := allowedTag(name, attrs, open); err != nil {
				return fmt.Errorf("%v at %d: %q", err, i, around(s, i))
			}
			open = append(open, name)
			i += len(m[0])
		case '>':
			return fmt.Errorf("raw > at %d: %q", i, around(s, i))
		case '&':
			m := entityRe.FindString(s[i:])
			if m == "" {
				return fmt.Errorf("raw & at %d: %q", i, around(s, i))
			}
			i += len(m)
		default:
			i++
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("unclosed %v", open)
	}
	return nil
}

func allowedTag(name, attrs string, open []string) error {
	inside := func(tags ...string) bool {
		for _, t := range open {
			if slices.Contains(tags, t) {
				return true
			}
		}
		return false
	}
	switch name {
	case "b", "i", "s", "u":
		if attrs != "" || inside("code", "pre") {
			return fmt.Errorf("<%s%s> inside %v", name, attrs, open)
		}
	case "a":
		if !hrefRe.MatchString(attrs) || inside("code", "pre", "a") {
			return fmt.Errorf("<a%s> inside %v", attrs, open)
		}
	case "code":
		if len(open) == 1 && open[0] == "pre" {
			if !strings.HasPrefix(attrs, ` class="language-`) {
				return fmt.Errorf("<code%s> in <pre>", attrs)
			}
			return nil
		}
		if attrs != "" || inside("b", "i", "s", "u", "a", "code", "pre") {
			return fmt.Errorf("<code%s> inside %v", attrs, open)
		}
	case "pre":
		if attrs != "" || len(open) > 0 {
			return fmt.Errorf("<pre> inside %v", open)
		}
	case "blockquote":
		if attrs != "" || len(open) > 0 {
			return fmt.Errorf("<blockquote> inside %v", open)
		}
	default:
		return fmt.Errorf("<%s> is not a Telegram tag", name)
	}
	return nil
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}
