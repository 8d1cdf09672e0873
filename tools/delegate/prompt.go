package delegate

import "strings"

// systemPrompt is the child's focused prompt: the goal, the context, and
// how to finish. The child knows nothing else about the parent's work.
func systemPrompt(s ChildSpec, workdir string) string {
	var b strings.Builder
	b.WriteString("You are a focused subagent working on a specific delegated task.\n\nYOUR TASK:\n")
	b.WriteString(strings.TrimSpace(s.Goal))
	if c := strings.TrimSpace(s.Context); c != "" {
		b.WriteString("\n\nCONTEXT:\n")
		b.WriteString(c)
	}
	if workdir != "" {
		b.WriteString("\n\nWORKSPACE:\n")
		b.WriteString(workdir)
	}
	b.WriteString("\n\nHOW TO WORK:\n" +
		"- This conversation is new: the agent that delegated to you sees none of it, and you see none of its own. Everything you were given is above.\n" +
		"- Work on your own with your tools. Nobody can answer questions. A command that needs approval may be refused; then find another way or report it.\n" +
		"- Stay on the task; do not start unrelated work.\n" +
		"- Finish with a concise summary: what you did, what you found, the full paths of files you created or changed, and anything that failed or is left to do. That summary is all the delegating agent receives.")
	return b.String()
}
