package skills

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

// Toolset is the toolset of the skill tools.
const Toolset = "skills"

type listArgs struct{}

type viewArgs struct {
	Name string `json:"name" jsonschema:"As the skills index lists it."`
	File string `json:"file,omitempty" jsonschema:"Relative to the skill's directory; default SKILL.md."`
}

type manageArgs struct {
	Action string `json:"action" enum:"create,edit,delete"`
	Name   string `json:"name" jsonschema:"Letters, digits, . _ -"`
	// Content is the whole new text of the file.
	Content string `json:"content,omitempty"`
	File    string `json:"file,omitempty" jsonschema:"A file beside SKILL.md; default SKILL.md."`
}

// Tools are skills_list, skill_view and skill_manage. skills_list and
// skill_view are offered only while a skill is installed (or one failed
// to load, which skills_list explains); skill_manage, which creates the
// first one, always is.
func (l *Library) Tools() []tool.Tool {
	return []tool.Tool{
		tool.Must(tool.New(tool.Spec{Name: "skills_list", Toolset: Toolset, Class: tool.Parallel, Check: l.installed,
			Description: "List the skills (instructions for particular tasks): description, directory and files of each."}, l.listTool)),
		tool.Must(tool.New(tool.Spec{Name: "skill_view", Toolset: Toolset, Class: tool.Parallel, Check: l.installed,
			Description: "Load a skill's SKILL.md (or one of its files) before doing the task it is for."}, l.viewTool)),
		tool.Must(tool.New(tool.Spec{Name: "skill_manage", Toolset: Toolset, Class: tool.Sequential,
			Description: "Create, edit or delete a skill in " + l.Dir() + " (only there) to reuse a procedure that worked. " +
				"SKILL.md: front matter (---, name: NAME, description: ONE LINE, ---), then when to use it, steps, pitfalls, checks. " +
				"Text that looks like a prompt injection is refused."}, l.manageTool)),
	}
}

// errNoSkills is why skills_list and skill_view are not offered.
var errNoSkills = errors.New("no skills are installed")

// installed reports whether there is a skill to list or view. It is asked
// before every model call, so it walks the roots only when one of them
// appeared, vanished or changed since the last walk found nothing; once
// a skill is found the answer stays yes.
func (l *Library) installed() error {
	l.seenMu.Lock()
	defer l.seenMu.Unlock()
	if l.seen {
		return nil
	}
	sig := l.rootsSignature()
	if l.emptySig != "" && sig == l.emptySig {
		return errNoSkills
	}
	if list, notes := l.List(); len(list) == 0 && len(notes) == 0 {
		l.emptySig = sig
		return errNoSkills
	}
	l.seen = true
	return nil
}

// rootsSignature says, for each root, whether it exists and when it
// last changed: a skill installed or removed directly in a root changes
// it.
func (l *Library) rootsSignature() string {
	var b strings.Builder
	for _, r := range l.Roots {
		b.WriteString(r.Dir)
		if st, err := os.Stat(r.Dir); err == nil {
			fmt.Fprintf(&b, ":%d", st.ModTime().UnixNano())
		}
		b.WriteByte(';')
	}
	return b.String()
}

func (l *Library) listTool(ctx context.Context, _ tool.Call, _ listArgs) (tool.Result, error) {
	list, notes := l.List()
	if len(list) == 0 {
		msg := "No skills are installed. Create one with skill_manage, or the user can run hermes skills install."
		if len(notes) > 0 {
			msg += "\nNot loaded:\n" + strings.Join(notes, "\n")
		}
		return tool.Text(msg), nil
	}
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "%s: %s\n  (%s skill in %s", s.Name, s.Description, s.Source, s.Dir)
		if files, _ := s.Files(); len(files) > 0 {
			fmt.Fprintf(&b, "; files: %s", strings.Join(files, ", "))
		}
		b.WriteString(")\n")
	}
	if len(notes) > 0 {
		b.WriteString("Not loaded:\n" + strings.Join(notes, "\n") + "\n")
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}

func (l *Library) viewTool(ctx context.Context, _ tool.Call, a viewArgs) (tool.Result, error) {
	s, err := l.Get(a.Name)
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	if a.File != "" && a.File != FileName {
		text, err := s.ReadFile(a.File)
		if err != nil {
			return tool.Error(err.Error()), nil
		}
		return tool.Text(text), nil
	}
	text, err := s.Load()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	out := strings.TrimRight(text, "\n") + fmt.Sprintf("\n\n[skill %s, in %s]", s.Name, s.Dir)
	if files, _ := s.Files(); len(files) > 0 {
		out += fmt.Sprintf("\n[its files, read with skill_view(%q, file): %s]", s.Name, strings.Join(files, ", "))
	}
	return tool.Text(out), nil
}

func (l *Library) manageTool(ctx context.Context, _ tool.Call, a manageArgs) (tool.Result, error) {
	switch a.Action {
	case "create":
		if a.File != "" {
			return tool.Error("skill_manage: create makes SKILL.md; add other files afterwards with action edit and file"), nil
		}
		s, err := l.Create(a.Name, a.Content)
		if err != nil {
			return tool.Error("skill_manage: " + err.Error()), nil
		}
		return tool.Text(fmt.Sprintf("Created skill %s in %s. It is listed in the skills index of new sessions; skill_view loads it now.", s.Name, s.Dir)), nil
	case "edit":
		s, err := l.Edit(a.Name, a.File, a.Content)
		if err != nil {
			return tool.Error("skill_manage: " + err.Error()), nil
		}
		what := FileName
		if a.File != "" {
			what = a.File
		}
		return tool.Text(fmt.Sprintf("Saved %s of skill %s in %s.", what, s.Name, s.Dir)), nil
	case "delete":
		if err := l.Delete(a.Name, a.File); err != nil {
			return tool.Error("skill_manage: " + err.Error()), nil
		}
		if a.File != "" {
			return tool.Text(fmt.Sprintf("Deleted %s of skill %s.", a.File, a.Name)), nil
		}
		return tool.Text(fmt.Sprintf("Deleted skill %s.", a.Name)), nil
	}
	return tool.Error(fmt.Sprintf("skill_manage: unknown action %q (create, edit or delete)", a.Action)), nil
}
