package app

import (
	"strings"

	"github.com/hermes-go/hermes/skills"
)

// openSkills finds the skills library of the runtime: HERMES_HOME's,
// the default workspace's and skills.external_dirs.
func (rt *Runtime) openSkills() {
	rt.skills = skills.New(rt.cfg.Home, rt.workdir, rt.cfg.Skills.ExternalDirs)
}

// skillsPrompt is the skills part of a conversation's system prompt: the
// index (when the skills toolset is on) and the preloaded skills. Skills
// left out for a reason other than being shadowed are reported.
func (c *Conversation) skillsPrompt() string {
	var parts []string
	if c.toolsetOn(skills.Toolset) {
		list, notes := c.rt.skills.List()
		for _, n := range notes {
			if !strings.Contains(n, " is shadowed by ") {
				c.warning("skills: " + n)
			}
		}
		if idx := skills.Index(list, 0); idx != "" {
			parts = append(parts, idx)
		}
	}
	if c.preloaded != "" {
		parts = append(parts, c.preloaded)
	}
	return strings.Join(parts, "\n\n")
}

// Skills is the runtime's skills library (hermes skills, skill tools).
func (rt *Runtime) Skills() *skills.Library { return rt.skills }

// SkillNames lists the installed skills, sorted: each is a slash
// command, /<name> [request].
func (rt *Runtime) SkillNames() []string { return rt.skills.Names() }

// SkillMessage is the message /<name> [request] sends: the skill's
// instructions and the user's request. An unknown skill is an error
// naming the installed ones.
func (rt *Runtime) SkillMessage(name, request string) (string, error) {
	return rt.skills.Message(name, request)
}
