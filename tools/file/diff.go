package file

import (
	"fmt"
	"strings"
)

const diffContext = 3

// UnifiedDiff is a unified diff of a and b ("" when equal) with a few
// lines of context, the file named name on both sides.
func UnifiedDiff(name, a, b string) string { return unifiedDiff(name, a, b) }

// unifiedDiff renders a line diff of a and b with a few lines of context,
// enough for the model to see what it changed. Large inputs fall back to
// one hunk spanning the changed region.
func unifiedDiff(name, a, b string) string {
	if a == b {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	// Trim the common prefix and suffix; the DP runs only on the middle.
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(al)+len(bl))
	for i := 0; i < pre; i++ {
		ops = append(ops, diffOp{' ', al[i]})
	}
	ops = append(ops, lcsDiff(al[pre:len(al)-suf], bl[pre:len(bl)-suf])...)
	for i := len(al) - suf; i < len(al); i++ {
		ops = append(ops, diffOp{' ', al[i]})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	writeHunks(&out, ops)
	return out.String()
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.SplitAfter(s, "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

func lcsDiff(a, b []string) []diffOp {
	if len(a)*len(b) > 4_000_000 {
		ops := make([]diffOp, 0, len(a)+len(b))
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// dp[i][j] = LCS length of a[i:], b[j:].
	w := len(b) + 1
	dp := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i*w+j] = dp[(i+1)*w+j+1] + 1
			} else {
				dp[i*w+j] = max(dp[(i+1)*w+j], dp[i*w+j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case dp[(i+1)*w+j] >= dp[i*w+j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}

// writeHunks prints the changed ops grouped into hunks with context.
func writeHunks(out *strings.Builder, ops []diffOp) {
	n := len(ops)
	for i := 0; i < n; {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		// Extend the hunk while changes are within 2*context of each other.
		for end < n {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			k := end
			for k < n && ops[k].kind == ' ' {
				k++
			}
			if k < n && k-end <= 2*diffContext {
				end = k
				continue
			}
			end = min(n, end+diffContext)
			break
		}
		aStart, bStart := 1, 1
		for _, op := range ops[:start] {
			if op.kind != '+' {
				aStart++
			}
			if op.kind != '-' {
				bStart++
			}
		}
		aLen, bLen := 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}
