package memory

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/prompt/untrusted"
)

// bar is the rule above and below a file's header.
const bar = "══════════════════════════════════════════════"

// render formats a file's entries for the system prompt:
//
//	══════…
//	MEMORY (your personal notes) [45% — 990/2200 chars]
//	══════…
//	entry
//	§
//	entry
//
// Entries that match a threat pattern are replaced by a [BLOCKED: …] note
// (the file keeps them, so the user can see and remove them). The block is
// capped at max(2×budget, 4000) characters, head and tail kept, so a file
// grown far past its budget outside the tool cannot flood the prompt.
func render(f *file) string {
	if len(f.entries) == 0 {
		return ""
	}
	shown := make([]string, len(f.entries))
	for i, e := range f.entries {
		if ids := untrusted.ScanStrict(e); len(ids) > 0 {
			shown[i] = fmt.Sprintf("[BLOCKED: %s entry contained threat pattern(s): %s. Removed from system prompt; use memory(action=remove) to delete the original.]",
				f.name, strings.Join(ids, ", "))
			continue
		}
		shown[i] = strings.ToValidUTF8(e, "\uFFFD")
	}
	used := chars(f.entries)
	header := fmt.Sprintf("%s [%s chars]", title(f.target), percentUsage(used, f.limit))
	if used > f.limit {
		header += " ⚠ OVER BUDGET"
	}
	body, _ := untrusted.Truncate(strings.Join(shown, Separator), max(2*f.limit, 4000), f.name)
	return bar + "\n" + header + "\n" + bar + "\n" + body
}

func title(t Target) string {
	if t == TargetUser {
		return "USER PROFILE (who the user is)"
	}
	return "MEMORY (your personal notes)"
}

// percentUsage is "45% — 990/2200".
func percentUsage(used, limit int) string {
	pct := 0
	if limit > 0 {
		pct = min(100, used*100/limit)
	}
	return fmt.Sprintf("%d%% — %d/%d", pct, used, limit)
}
