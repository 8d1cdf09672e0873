package format

import (
	"strings"
	"unicode/utf8"

	east "github.com/yuin/goldmark/extension/ast"
)

// layoutTable lays a table out as monospaced text for a code block: cells
// as plain text padded to their column's width, the header ruled off.
// No chat platform renders markdown tables.
func (d *doc) layoutTable(t *east.Table) string {
	p := &converter{d: d, st: plainStyle{}}
	var rows [][]string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, strings.ReplaceAll(p.inline(cell, nil), "\n", " "))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for ri, row := range rows {
		if ri > 0 {
			b.WriteByte('\n')
		}
		var parts []string
		for i, w := range widths {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			parts = append(parts, cell+strings.Repeat(" ", w-utf8.RuneCountInString(cell)))
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, " | "), " "))
		if _, header := t.FirstChild().(*east.TableHeader); ri == 0 && header {
			rule := make([]string, len(widths))
			for i, w := range widths {
				rule[i] = strings.Repeat("-", w)
			}
			b.WriteString("\n" + strings.Join(rule, "-+-"))
		}
	}
	return b.String()
}
