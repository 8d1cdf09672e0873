package todo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Status of an item.
type Status string

// The four statuses.
const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
	Cancelled  Status = "cancelled"
)

// Limits applied to written items.
const (
	MaxItems       = 256
	MaxContentLen  = 4000
	truncateSuffix = "… [truncated]"
)

// Item is one task.
type Item struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  Status `json:"status"`
	// Parent is the id of the item this one is a sub-task of.
	Parent string `json:"parent,omitempty"`
}

// Summary counts items by status.
type Summary struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Cancelled  int `json:"cancelled"`
}

// State is the list and its revision.
type State struct {
	Todos    []Item `json:"todos"`
	Revision int    `json:"revision"`
}

// Summary counts the state's items.
func (st State) Summary() Summary {
	s := Summary{Total: len(st.Todos)}
	for _, it := range st.Todos {
		switch it.Status {
		case Pending:
			s.Pending++
		case InProgress:
			s.InProgress++
		case Completed:
			s.Completed++
		case Cancelled:
			s.Cancelled++
		}
	}
	return s
}

// Store holds one session's task list. The zero value is an empty list.
type Store struct {
	mu    sync.Mutex
	state State
}

// Get returns a copy of the state.
func (s *Store) Get() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return State{Todos: slices.Clone(s.state.Todos), Revision: s.state.Revision}
}

// Set replaces the state as is (restoring a saved session).
func (s *Store) Set(st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = State{Todos: slices.Clone(st.Todos), Revision: st.Revision}
}

// MarshalJSON encodes the state.
func (s *Store) MarshalJSON() ([]byte, error) {
	st := s.Get()
	if st.Todos == nil {
		st.Todos = []Item{}
	}
	return json.Marshal(st)
}

// UnmarshalJSON restores a state written by MarshalJSON. Empty input (no
// saved list) resets the store.
func (s *Store) UnmarshalJSON(b []byte) error {
	var st State
	if len(b) > 0 && string(b) != "null" {
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("todo: restore task list: %w", err)
		}
	}
	s.Set(st)
	return nil
}

// Patch is an item as written by the model: absent fields are nil, so a
// merge changes only what was given.
type Patch struct {
	ID      *Ref    `json:"id"`
	Content *string `json:"content"`
	Status  *string `json:"status"`
	Parent  *Ref    `json:"parent"`
}

// Ref is an item id. Models send ids as strings or as numbers; both are
// accepted.
type Ref string

// UnmarshalJSON accepts a string, a number or null.
func (r *Ref) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*r = Ref(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an id must be a string or a number, got %s", b)
	}
	*r = Ref(n.String())
	return nil
}

// Write applies items (replace, or merge by id) and returns the new state
// and whether the list changed; the revision increments only then.
func (s *Store) Write(items []Patch, merge bool) (State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next []Item
	if merge {
		next = slices.Clone(s.state.Todos)
		for _, p := range items {
			id := normID(p.ID)
			if i := slices.IndexFunc(next, func(it Item) bool { return it.ID == id }); i >= 0 {
				applyPatch(&next[i], p)
				continue
			}
			it := Item{ID: id}
			applyPatch(&it, p)
			normalise(&it)
			next = append(next, it)
		}
	} else {
		for _, p := range items {
			it := Item{ID: normID(p.ID)}
			applyPatch(&it, p)
			normalise(&it)
			// A repeated id: the last occurrence's fields, the first's position.
			if i := slices.IndexFunc(next, func(x Item) bool { return x.ID == it.ID }); i >= 0 {
				next[i] = it
				continue
			}
			next = append(next, it)
		}
	}
	if len(next) > MaxItems {
		next = next[:MaxItems]
	}
	next = fixParents(next)
	next = promoteInProgress(next)
	if slices.Equal(next, s.state.Todos) {
		return State{Todos: slices.Clone(next), Revision: s.state.Revision}, false
	}
	s.state = State{Todos: next, Revision: s.state.Revision + 1}
	return State{Todos: slices.Clone(next), Revision: s.state.Revision}, true
}

func normID(id *Ref) string {
	if id == nil || strings.TrimSpace(string(*id)) == "" {
		return "?"
	}
	return strings.TrimSpace(string(*id))
}

// applyPatch sets the fields p carries.
func applyPatch(it *Item, p Patch) {
	if p.Content != nil {
		it.Content = *p.Content
	}
	if p.Status != nil {
		it.Status = Status(strings.TrimSpace(strings.ToLower(*p.Status)))
	}
	if p.Parent != nil {
		it.Parent = strings.TrimSpace(string(*p.Parent))
	}
	normalise(it)
}

func normalise(it *Item) {
	switch it.Status {
	case Pending, InProgress, Completed, Cancelled:
	default:
		it.Status = Pending
	}
	it.Content = strings.TrimSpace(it.Content)
	if it.Content == "" {
		it.Content = "(no description)"
	}
	if utf8.RuneCountInString(it.Content) > MaxContentLen {
		it.Content = string([]rune(it.Content)[:MaxContentLen]) + truncateSuffix
	}
	if it.Parent == it.ID {
		it.Parent = ""
	}
}

// fixParents drops parent links to missing items and links that close a
// cycle (the link found while walking up is the one removed).
func fixParents(items []Item) []Item {
	index := map[string]int{}
	for i, it := range items {
		index[it.ID] = i
	}
	for i := range items {
		if _, ok := index[items[i].Parent]; !ok {
			items[i].Parent = ""
		}
	}
	for i := range items {
		seen := map[string]bool{items[i].ID: true}
		for j := i; items[j].Parent != ""; {
			p := index[items[j].Parent]
			if seen[items[p].ID] {
				items[j].Parent = ""
				break
			}
			seen[items[p].ID] = true
			j = p
		}
	}
	return items
}

// promoteInProgress moves the first in_progress item ahead of pending
// items listed before it, so the current task leads. Lists with sub-tasks
// keep their order (moving an item would separate it from its parent).
func promoteInProgress(items []Item) []Item {
	for _, it := range items {
		if it.Parent != "" {
			return items
		}
	}
	cur := slices.IndexFunc(items, func(it Item) bool { return it.Status == InProgress })
	if cur < 0 {
		return items
	}
	first := slices.IndexFunc(items[:cur], func(it Item) bool { return it.Status == Pending })
	if first < 0 {
		return items
	}
	it := items[cur]
	items = slices.Delete(items, cur, cur+1)
	return slices.Insert(items, first, it)
}

// ReminderHeader starts the message that re-injects the task list after
// context compression.
const ReminderHeader = "[Your active task list was preserved across context compression]"

// Reminder renders the pending and in-progress items (with their
// ancestors, for context) under ReminderHeader, one line each:
// "- [>] 2. Write tests (in_progress)", sub-tasks indented. It is empty
// when nothing is active.
func (s *Store) Reminder() string {
	st := s.Get()
	index := map[string]int{}
	for i, it := range st.Todos {
		index[it.ID] = i
	}
	keep := make([]bool, len(st.Todos))
	for i, it := range st.Todos {
		if it.Status != Pending && it.Status != InProgress {
			continue
		}
		for j, ok := i, true; ok && !keep[j]; j, ok = index[st.Todos[j].Parent] {
			keep[j] = true
		}
	}
	var b strings.Builder
	for i, it := range st.Todos {
		if !keep[i] {
			continue
		}
		depth := 0
		for p, ok := index[it.Parent]; ok && depth < len(st.Todos); p, ok = index[st.Todos[p].Parent] {
			depth++
		}
		fmt.Fprintf(&b, "\n%s- %s %s. %s (%s)", strings.Repeat("  ", depth), marker(it.Status), it.ID, it.Content, it.Status)
	}
	if b.Len() == 0 {
		return ""
	}
	return ReminderHeader + b.String()
}

func marker(s Status) string {
	switch s {
	case Completed:
		return "[x]"
	case InProgress:
		return "[>]"
	case Cancelled:
		return "[~]"
	}
	return "[ ]"
}
