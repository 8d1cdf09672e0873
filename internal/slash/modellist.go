package slash

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// maxListed is how many offered models /model lists; a provider such as
// OpenRouter offers hundreds, which /model NAME still reaches.
const maxListed = 40

// offered is the models /model offers, numbered as /model N picks them:
// the chain and auxiliary models, then what the provider lists.
func offered(ctx context.Context, h Host) ([]string, error) {
	rt := h.Runtime()
	if rt == nil {
		return nil, nil
	}
	return rt.OfferedModels(ctx)
}

// offeredList is the text of /model without arguments after the current
// model: the numbered list, current marked with *.
func offeredList(ctx context.Context, h Host, current string) string {
	list, err := offered(ctx, h)
	var b strings.Builder
	if len(list) > 0 {
		b.WriteString("Models offered:\n")
	}
	for i, m := range list {
		if i == maxListed {
			fmt.Fprintf(&b, "  ... and %d more (/model NAME picks any)\n", len(list)-maxListed)
			break
		}
		mark := " "
		if m == current {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %2d) %s\n", mark, i+1, m)
	}
	if err != nil {
		fmt.Fprintf(&b, "(the provider's list could not be read: %v)\n", err)
	}
	b.WriteString("Switch with /model N, /model NAME or /model PROVIDER:NAME.")
	return b.String()
}

// pickModel turns /model N into the Nth model offered; any other
// argument is a model's name, as it is.
func pickModel(ctx context.Context, h Host, args string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(args))
	if err != nil {
		return args, nil
	}
	list, lerr := offered(ctx, h)
	if n < 1 || n > len(list) {
		if lerr != nil {
			return "", fmt.Errorf("/model %d: the list of models could not be read: %w", n, lerr)
		}
		return "", fmt.Errorf("/model %d: %d models are offered (/model lists them)", n, len(list))
	}
	return list[n-1], nil
}
