package memory

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/prompt/untrusted"
)

// Op is one edit.
type Op struct {
	// Action is "add", "replace" or "remove".
	Action string `json:"action" enum:"add,replace,remove"`
	// Content is the new entry (add, replace).
	Content string `json:"content,omitempty"`
	// OldText is a substring naming the entry to replace or remove.
	OldText string `json:"old_text,omitempty"`
}

// Result is what an edit reports, shaped as the memory tool's JSON.
type Result struct {
	Success bool   `json:"success"`
	Done    bool   `json:"done,omitempty"`
	Target  Target `json:"target,omitempty"`
	Message string `json:"message,omitempty"`
	Error   string `json:"error,omitempty"`
	// Usage is "45% — 990/2200 chars" on success and "990/2200" on failure.
	Usage      string `json:"usage,omitempty"`
	EntryCount *int   `json:"entry_count,omitempty"`
	// CurrentEntries lists the live entries when the model needs them to
	// choose what to consolidate or which entry it meant.
	CurrentEntries []string `json:"current_entries,omitempty"`
	// Matches previews the entries an ambiguous old_text matched.
	Matches []string `json:"matches,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// maxFailuresPerTurn bounds consolidation retries: past it the result
// tells the model to stop, so a memory side effect never eats the turn.
const maxFailuresPerTurn = 3

// Add appends an entry. An exact duplicate succeeds without writing.
func (s *Store) Add(t Target, content string) (Result, error) {
	return s.apply(t, []Op{{Action: "add", Content: content}}, false)
}

// Replace swaps the entry containing oldText for content.
func (s *Store) Replace(t Target, oldText, content string) (Result, error) {
	return s.apply(t, []Op{{Action: "replace", OldText: oldText, Content: content}}, false)
}

// Remove deletes the entry containing oldText.
func (s *Store) Remove(t Target, oldText string) (Result, error) {
	return s.apply(t, []Op{{Action: "remove", OldText: oldText}}, false)
}

// Apply runs a batch against one target, all or nothing: every operation
// is applied to a copy, and the copy is written only when all of them
// succeed and its final size is within the budget. Intermediate sizes do
// not matter, so one batch can free room and add.
//
// Refusals (no match, ambiguous match, over budget, unsafe content) are
// Results with Success false; the error is for failures to read or write
// the file.
func (s *Store) Apply(t Target, ops []Op) (Result, error) {
	return s.apply(t, ops, true)
}

func (s *Store) apply(t Target, ops []Op, batch bool) (Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.file(t)
	if f == nil {
		return Result{Error: fmt.Sprintf("Unknown target %q: use \"memory\" or \"user\".", t)}, nil
	}
	if len(ops) == 0 {
		return Result{Target: t, Error: "operations list is empty."}, nil
	}
	for i, op := range ops {
		if msg := checkContent(op); msg != "" {
			return Result{Target: t, Error: opPrefix(batch, i, op) + msg}, nil
		}
	}

	unlock, err := lockFile(f.path + ".lock")
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	if _, err := f.refresh(); err != nil {
		return Result{}, err
	}

	working := slices.Clone(f.entries)
	for i, op := range ops {
		var no *refusal
		if working, no = applyOne(working, op); no != nil {
			no.msg = opPrefix(batch, i, op) + no.msg + batchNote(batch)
			return s.refuse(f, *no), nil
		}
	}

	before, after := chars(f.entries), chars(working)
	if after > f.limit && after > before {
		return s.refuse(f, refusal{msg: overBudget(f, ops, batch, before, after)}), nil
	}
	var message string
	switch {
	case batch:
		message = fmt.Sprintf("Applied %d operation(s).", len(ops))
	case slices.Equal(working, f.entries) && ops[0].Action == "add":
		message = "Entry already exists (no duplicate added)."
	case ops[0].Action == "add":
		message = "Entry added."
	case ops[0].Action == "replace":
		message = "Entry replaced."
	default:
		message = "Entry removed."
	}
	if !slices.Equal(working, f.entries) {
		if err := f.store(working); err != nil {
			return Result{}, err
		}
	}
	s.failures = 0
	n := len(f.entries)
	return Result{
		Success: true, Done: true, Target: t, Message: message,
		Usage: percentUsage(chars(f.entries), f.limit) + " chars", EntryCount: &n,
		Note: "Write saved. This update is complete — do not repeat it.",
	}, nil
}

// checkContent validates an operation before the file is touched.
func checkContent(op Op) string {
	content := strings.TrimSpace(op.Content)
	switch op.Action {
	case "add", "replace":
		if content == "" {
			if op.Action == "replace" {
				return "content is required (use action='remove' to delete an entry)."
			}
			return "Content cannot be empty."
		}
		for _, line := range strings.Split(content, "\n") {
			if isSeparator(line) {
				return "content may not contain a line holding only § (it separates entries)."
			}
		}
		if ids := untrusted.ScanStrict(content); len(ids) > 0 {
			return fmt.Sprintf("Refused: the content matches threat pattern(s) %s. Memory is loaded into every future system prompt, so it may not hold instructions like these or commands that move secrets.", strings.Join(ids, ", "))
		}
	case "remove":
	default:
		return fmt.Sprintf("unknown action %q: use add, replace or remove.", op.Action)
	}
	if op.Action != "add" && strings.TrimSpace(op.OldText) == "" {
		return "old_text cannot be empty."
	}
	return ""
}

// refusal is why an operation was not applied.
type refusal struct {
	msg string
	// matches are the distinct entries an ambiguous old_text matched.
	matches []string
}

// applyOne applies op to entries, or says why it cannot.
func applyOne(entries []string, op Op) ([]string, *refusal) {
	// Model-written content is trimmed entirely (entries read from a file
	// keep their first line's indentation: see trimEntry).
	content := strings.TrimSpace(op.Content)
	if op.Action == "add" {
		if slices.Contains(entries, content) {
			return entries, nil // idempotent
		}
		return append(entries, content), nil
	}
	old := strings.TrimSpace(op.OldText)
	var idx []int
	for i, e := range entries {
		if strings.Contains(e, old) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		verb := "replace"
		if op.Action == "remove" {
			verb = "remove"
		}
		return entries, &refusal{msg: fmt.Sprintf("No entry matched '%s'. Check current_entries below and retry with the exact text of the entry you want to %s.", old, verb)}
	}
	var distinct []string
	for _, i := range idx {
		if !slices.Contains(distinct, entries[i]) {
			distinct = append(distinct, entries[i])
		}
	}
	if len(distinct) > 1 {
		return entries, &refusal{msg: fmt.Sprintf("Multiple entries matched '%s'. Be more specific.", old), matches: distinct}
	}
	i := idx[0] // identical duplicates: act on the first
	if op.Action == "replace" {
		entries[i] = content
		return entries, nil
	}
	return slices.Delete(entries, i, i+1), nil
}

// refuse builds a failed Result, counting it towards the per-turn limit.
func (s *Store) refuse(f *file, no refusal) Result {
	s.failures++
	used := chars(f.entries)
	r := Result{
		Target: f.target, Error: no.msg,
		Usage:          fmt.Sprintf("%d/%d", used, f.limit),
		CurrentEntries: previews(f.entries, f.limit),
	}
	if len(no.matches) > 0 {
		r.Matches, r.CurrentEntries = previews(no.matches, 80), nil
	}
	if s.failures > maxFailuresPerTurn {
		return Result{Target: f.target, Done: true, Usage: r.Usage, Error: fmt.Sprintf(
			"Memory update failed %d times this turn. Stop retrying memory calls: leave memory unchanged for now and continue with your reply to the user. The fact can be saved in a later turn.", s.failures)}
	}
	return r
}

func overBudget(f *file, ops []Op, batch bool, before, after int) string {
	name := "Memory"
	if f.target == TargetUser {
		name = "User profile"
	}
	switch {
	case before > f.limit:
		return fmt.Sprintf("%s holds %d/%d chars, more than its limit: it was probably edited outside this tool, and it has been kept as is. Remove or shorten entries (see current_entries) before adding; nothing was changed.", f.name, before, f.limit)
	case batch:
		return fmt.Sprintf("After applying all %d operations, %s would be at %d/%d chars, over the limit. Remove or shorten more entries in the same batch (see current_entries), then retry. No operations were applied (batch is all-or-nothing).", len(ops), strings.ToLower(name), after, f.limit)
	case ops[0].Action == "add":
		return fmt.Sprintf("%s at %d/%d chars. Adding this entry (%d chars) would exceed the limit. Consolidate now: use 'replace' to merge overlapping entries into shorter ones or 'remove' stale or less important entries (see current_entries), then retry this add.", name, before, f.limit, utf8.RuneCountInString(strings.TrimSpace(ops[0].Content)))
	default:
		return fmt.Sprintf("Replacement would put %s at %d/%d chars. Shorten the new content, or 'remove' other stale entries to make room (see current_entries), then retry.", strings.ToLower(name), after, f.limit)
	}
}

func opPrefix(batch bool, i int, op Op) string {
	if !batch {
		return ""
	}
	a := op.Action
	if a == "" {
		a = "unknown"
	}
	return fmt.Sprintf("Operation %d (%s): ", i+1, a)
}

func batchNote(batch bool) string {
	if batch {
		return " No operations were applied (batch is all-or-nothing)."
	}
	return ""
}

// previews returns the entries, each cut to width characters when width
// is positive, as valid UTF-8 (they are sent to the model as JSON).
func previews(entries []string, width int) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		e = strings.ToValidUTF8(e, "\uFFFD")
		if width > 0 && utf8.RuneCountInString(e) > width {
			e = string([]rune(e)[:width]) + "..."
		}
		out[i] = e
	}
	return out
}
