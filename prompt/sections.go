package prompt

// ContextFiles is the context-files layer of the prompt Build would
// assemble ("" when rules are ignored or none exist), for surfaces that
// show what fills the context window.
func (b Builder) ContextFiles() string {
	if b.IgnoreRules || (b.Workdir == "" && b.Home == "") {
		return ""
	}
	files, _ := b.contextFiles()
	return files
}
