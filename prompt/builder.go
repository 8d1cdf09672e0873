package prompt

import (
	"strings"
	"time"
)

// Builder holds everything the system prompt depends on.
type Builder struct {
	// Home is HERMES_HOME, where SOUL.md lives. Empty skips SOUL.md.
	Home string
	// Workdir is where the search for project context files starts.
	// Empty skips them (the global $HERMES_HOME/AGENTS.md is still read).
	Workdir  string
	Model    string
	Provider string
	// Platform selects the platform hint: "cli", "acp", "api", "cron",
	// "telegram", "discord", "slack", "whatsapp". Unknown or empty: none.
	Platform string
	// SessionID, when set, is stated in the closing lines.
	SessionID string
	// Now dates the conversation. Default time.Now.
	Now func() time.Time
	// IgnoreRules leaves out context files and memory (--ignore-rules).
	IgnoreRules bool
	// SkipSoul uses the built-in identity even when SOUL.md exists
	// (subagents).
	SkipSoul bool
	// MemorySnapshot and UserSnapshot are the frozen blocks from
	// memory.Store.Snapshot.
	MemorySnapshot string
	UserSnapshot   string
	// ToolNames are the tools offered in this session.
	ToolNames []string
	// Extra is configured system text (agent.system_prompt).
	Extra string
	// SkillsIndex is a pre-rendered skills section, inserted as is.
	SkillsIndex string
}

// Build assembles the prompt. Problems that do not prevent a prompt (an
// unreadable file, a truncated or fenced file) are returned as notes for
// the caller to show; the prompt is always usable.
func (b Builder) Build() (prompt string, notes []string) {
	parts, notes := b.Parts()
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n\n"), notes
}

// Part is one layer of the system prompt.
type Part struct {
	// Name says what the layer is: identity, tool guidance, extra,
	// memory, user profile, skills index, context files, platform hint,
	// session lines.
	Name string
	Text string
}

// Parts are the layers Build joins with blank lines, in order, empty
// ones left out.
func (b Builder) Parts() (parts []Part, notes []string) {
	add := func(name, s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, Part{name, s})
		}
	}
	identity, n := b.identity()
	notes = append(notes, n...)
	add("identity", identity)
	add("tool guidance", b.guidance())
	add("extra", b.Extra)
	if !b.IgnoreRules {
		add("memory", b.MemorySnapshot)
		add("user profile", b.UserSnapshot)
	}
	add("skills index", b.SkillsIndex)
	if !b.IgnoreRules && (b.Workdir != "" || b.Home != "") {
		files, n := b.contextFiles()
		notes = append(notes, n...)
		add("context files", files)
	}
	add("platform hint", platformHints.Get()[strings.ToLower(b.Platform)])
	add("session lines", b.closingLines())
	return parts, notes
}

// closingLines are the date and identity lines. The date has no time of
// day so the prompt stays byte-identical all day (prompt caching).
func (b Builder) closingLines() string {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	lines := []string{"Conversation started: " + now().Format("Monday, January 2, 2006")}
	if b.SessionID != "" {
		lines = append(lines, "Session ID: "+b.SessionID)
	}
	if b.Model != "" {
		lines = append(lines, modelPrefix+b.Model)
	}
	if b.Provider != "" {
		lines = append(lines, providerPrefix+b.Provider)
	}
	return strings.Join(lines, "\n")
}
