package slash

// Builtin returns a registry holding the built-in commands. Surfaces add
// their own (and other packages theirs) with Register.
func Builtin() *Registry {
	r := &Registry{}
	r.MustRegister(sessionCommands()...)
	r.MustRegister(turnCommands()...)
	r.MustRegister(infoCommands(r)...)
	r.MustRegister(extensionCommands()...)
	r.MustRegister(asideCommands()...)
	r.MustRegister(bgCommands()...)
	r.MustRegister(branchCommands()...)
	r.MustRegister(statusCommands()...)
	r.MustRegister(diffCommands()...)
	return r
}
