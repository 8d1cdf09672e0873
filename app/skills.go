package app

import (
	"strings"

	"github.com/hermes-go/hermes/skills"
	"github.com/hermes-go/hermes/tool"
)

// openSkills finds the skills library of the runtime: HERMES_HOME's,
// the project's and skills.external_dirs. Skills the run preloads
// (Options.Skills) must exist.
func (rt *Runtime) openSkills() error {
	rt.skills = skills.New(rt.cfg.Home, rt.workdir, rt.cfg.Skills.ExternalDirs)
	if len(rt.opts.Skills) == 0 {
		return nil
	}
	text, err := rt.skills.Preload(rt.opts.Skills)
	if err != nil {
		return configErr(err)
	}
	rt.preloaded = text
	return nil
}

// skillTools are skills_list, skill_view and skill_manage.
func (rt *Runtime) skillTools() []tool.Tool { return rt.skills.Tools() }

// skillsPrompt is the skills part of the system prompt: the index (when
// the skills toolset is on) and the preloaded skills. Skills left out
// for a reason other than being shadowed are reported.
func (rt *Runtime) skillsPrompt() string {
	var parts []string
	if toolsetEnabled(rt.cfg, skills.Toolset) {
		list, notes := rt.skills.List()
		for _, n := range notes {
			if !strings.Contains(n, " is shadowed by ") {
				rt.eventWarning("skills: " + n)
			}
		}
		if idx := skills.Index(list, 0); idx != "" {
			parts = append(parts, idx)
		}
	}
	if rt.preloaded != "" {
		parts = append(parts, rt.preloaded)
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
