package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// interactive reports the roles that get a ref: what a person clicks,
// types into or picks from. (Switches, not maps: nothing is built at
// start-up.)
func interactive(role string) bool {
	switch role {
	case "button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox",
		"option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider",
		"spinbutton", "treeitem":
		return true
	}
	return false
}

// structural reports the roles shown without a ref when they have a
// name: what orients a reader (headings, images, regions, cells).
func structural(role string) bool {
	switch role {
	case "heading", "img", "image", "navigation", "main", "banner", "contentinfo", "form", "region",
		"dialog", "alert", "alertdialog", "status", "table", "row", "cell", "columnheader", "rowheader",
		"list", "listitem", "article", "complementary", "figure", "group", "tabpanel", "menu", "menubar",
		"tablist", "tree", "grid", "gridcell", "progressbar", "meter", "paragraph", "blockquote", "code",
		"label", "caption", "term", "definition", "note", "marquee", "log", "timer", "math", "search", "toolbar":
		return true
	}
	return false
}

// snapshot is one rendering of the page's accessibility tree.
type snapshot struct {
	text string
	refs map[string]cdp.BackendNodeID
}

// takeSnapshot reads the whole accessibility tree (Accessibility.getFullAXTree)
// and renders one element a line, `role "name" @eN`, refs numbered from
// @e1 in document order; full adds the page's static text.
func takeSnapshot(ctx context.Context, full bool) (snapshot, error) {
	res, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return snapshot{}, fmt.Errorf("reading the accessibility tree: %w", err)
	}
	return render(res.Nodes, full), nil
}

// render walks the tree depth first from its root: document order.
func render(nodes []*accessibility.Node, full bool) snapshot {
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	snap := snapshot{refs: map[string]cdp.BackendNodeID{}}
	var b strings.Builder
	var walk func(n *accessibility.Node, parentName string, depth int)
	walk = func(n *accessibility.Node, parentName string, depth int) {
		if depth > 200 {
			return
		}
		role, name := axString(n.Role), strings.TrimSpace(collapse(axString(n.Name)))
		childParent := parentName
		if !n.Ignored {
			switch {
			case interactive(role) && n.BackendDOMNodeID != 0:
				ref := "e" + strconv.Itoa(len(snap.refs)+1)
				snap.refs[ref] = n.BackendDOMNodeID
				fmt.Fprintf(&b, "%s %s @%s%s\n", role, strconv.Quote(name), ref, states(n))
				childParent = name
			case role == "StaticText":
				if full && name != "" && !strings.Contains(parentName, name) {
					fmt.Fprintf(&b, "text %s\n", strconv.Quote(name))
				}
			case structural(role) && (name != "" || role == "img" || role == "image"):
				fmt.Fprintf(&b, "%s %s%s\n", role, strconv.Quote(name), states(n))
				childParent = name
			}
		}
		if role == "InlineTextBox" {
			return
		}
		for _, id := range n.ChildIDs {
			if c := byID[id]; c != nil {
				walk(c, childParent, depth+1)
			}
		}
	}
	for _, n := range nodes {
		if n.ParentID == "" {
			walk(n, "", 0)
			break
		}
	}
	snap.text = b.String()
	return snap
}

// states renders what a line needs beyond role and name: a field's value,
// checked, selected, disabled, a heading's level.
func states(n *accessibility.Node) string {
	var out []string
	if v := strings.TrimSpace(axString(n.Value)); v != "" {
		out = append(out, "value="+strconv.Quote(clip(collapse(v), 200)))
	}
	for _, p := range n.Properties {
		if p == nil || p.Value == nil {
			continue
		}
		v := axString(p.Value)
		switch p.Name {
		case accessibility.PropertyNameChecked, accessibility.PropertyNameSelected, accessibility.PropertyNameExpanded:
			if v == "true" || v == "mixed" {
				out = append(out, string(p.Name))
			}
		case accessibility.PropertyNameDisabled, accessibility.PropertyNameRequired:
			if v == "true" {
				out = append(out, string(p.Name))
			}
		case accessibility.PropertyNameLevel:
			out = append(out, "level="+v)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " [" + strings.Join(out, ", ") + "]"
}

// axString is an AX value as text: strings unquoted, numbers and
// booleans as JSON writes them.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
