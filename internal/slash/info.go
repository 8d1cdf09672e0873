package slash

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hermes-go/hermes/tool"
)

func infoCommands(r *Registry) []Command {
	return []Command{
		{Name: "help", Args: "[command]", Summary: "list the commands, or explain one", WhileBusy: true,
			Run: func(ctx context.Context, h Host, args string) error { return runHelp(r, h, args) }},
		{Name: "model", Args: "[provider:]name|N", Summary: "switch model from the next turn (without a name: show it and the models offered)", WhileBusy: true, Run: runModel},
		{Name: "usage", Summary: "tokens used in this session and how full the context is", WhileBusy: true, Run: runUsage},
		{Name: "context", Aliases: []string{"ctx"}, Summary: "what fills the context window, by category", WhileBusy: true, Run: runContext},
		{Name: "tools", Summary: "list the tools the model can call", WhileBusy: true, Run: runTools},
		{Name: "yolo", Args: "[on|off]", Summary: "toggle running dangerous commands without asking (the sandbox stays)", WhileBusy: true, Run: runYolo},
	}
}

// Help is the text of /help: every command of r with its arguments and
// summary.
func Help(r *Registry) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	var skills []Command
	for _, c := range r.Commands() {
		if c.Skill {
			skills = append(skills, c)
			continue
		}
		usage := "/" + c.Name
		if c.Args != "" {
			usage += " " + c.Args
		}
		summary := c.Summary
		if len(c.Aliases) > 0 {
			summary += " (also /" + strings.Join(c.Aliases, ", /") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\n", usage, summary)
	}
	if len(skills) > 0 {
		fmt.Fprintf(tw, "\nSkills:\t\n")
		for _, c := range skills {
			fmt.Fprintf(tw, "/%s %s\t%s\n", c.Name, c.Args, c.Summary)
		}
	}
	tw.Flush()
	b.WriteString("\nA unique prefix is enough (/mod is /model); Tab completes. !CMD runs a shell command (sandboxed, with approvals).")
	return b.String()
}

func runHelp(r *Registry, h Host, args string) error {
	if args == "" {
		h.Print(Info, Help(r))
		return nil
	}
	c, err := r.Lookup(args)
	if err != nil {
		return err
	}
	text := "/" + c.Name
	if c.Args != "" {
		text += " " + c.Args
	}
	text += "\n  " + c.Summary
	if len(c.Aliases) > 0 {
		text += "\n  also /" + strings.Join(c.Aliases, ", /")
	}
	h.Print(Info, text)
	return nil
}

func runModel(ctx context.Context, h Host, args string) error {
	c := h.Conversation()
	if args == "" {
		model, prov := c.Model()
		text := fmt.Sprintf("Model %s on %s.", model, prov)
		if m, p, ok := c.PendingModel(); ok {
			text += fmt.Sprintf(" From the next turn: %s on %s.", m, p)
		}
		h.Print(Info, text+"\n"+offeredList(ctx, h, prov+":"+model))
		return nil
	}
	args, err := pickModel(ctx, h, args)
	if err != nil {
		return err
	}
	ep, err := c.SwitchModel(ctx, args)
	if err != nil {
		return err
	}
	when := "from the next turn"
	if !h.Busy() {
		when = "from your next message"
	}
	h.Print(Info, fmt.Sprintf("Model %s on %s, %s.", ep.Model, ep.Provider, when))
	return nil
}

func runUsage(ctx context.Context, h Host, _ string) error {
	u, err := h.Conversation().Usage(ctx)
	if err != nil {
		return err
	}
	s := u.Session
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s · %s on %s\n", s.ID, u.Model, u.Provider)
	fmt.Fprintf(&b, "  tokens in   %d (cache read %d, cache write %d)\n", s.Usage.InputTokens, s.Usage.CacheReadTokens, s.Usage.CacheWriteTokens)
	fmt.Fprintf(&b, "  tokens out  %d (reasoning %d)\n", s.Usage.OutputTokens, s.Usage.ReasoningTokens)
	fmt.Fprintf(&b, "  API calls   %d · messages %d\n", s.APICalls, s.MessageCount)
	fmt.Fprintf(&b, "  cost        %s\n", sessionCost(u))
	fmt.Fprintf(&b, "  context     %s\n", contextLine(u.Context.Tokens, u.Context.Window))
	b.WriteString("This run, by task (auxiliary tasks apart from the main model):\n")
	b.WriteString(u.ByTask.String())
	h.Print(Info, b.String())
	return nil
}

func contextLine(tokens, window int) string {
	if window <= 0 {
		return fmt.Sprintf("~%d tokens (window unknown)", tokens)
	}
	return fmt.Sprintf("~%d of %d tokens (%.1f%%)", tokens, window, 100*float64(tokens)/float64(window))
}

func runContext(ctx context.Context, h Host, _ string) error {
	c := h.Conversation().Context()
	var b strings.Builder
	for _, p := range c.Parts {
		share := ""
		if c.Window > 0 {
			share = fmt.Sprintf("%5.1f%%", 100*float64(p.Tokens)/float64(c.Window))
		}
		fmt.Fprintf(&b, "%-14s %8s %6s  %s\n", p.Name, fmt.Sprintf("~%d", p.Tokens), share, bar(p.Tokens, c.Tokens, 20))
	}
	fmt.Fprintf(&b, "total: %s (estimated at 4 characters a token; the bars share the total)", contextLine(c.Tokens, c.Window))
	h.Print(Info, b.String())
	return nil
}

// bar draws n of total as a bar of width cells.
func bar(n, total, width int) string {
	if total <= 0 {
		return ""
	}
	full := min(width, (2*n*width+total)/(2*total)) // rounded
	return strings.Repeat("█", full) + strings.Repeat("·", width-full)
}

func runTools(_ context.Context, h Host, _ string) error {
	specs := h.Conversation().ToolSpecs()
	if len(specs) == 0 {
		h.Print(Info, "The model has no tools (toolsets in config.yaml, --toolsets).")
		return nil
	}
	groups := map[string][]tool.Spec{}
	for _, s := range specs {
		ts := s.Toolset
		if ts == "" {
			ts = "other"
		}
		groups[ts] = append(groups[ts], s)
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%d tools the model can call:\n", len(specs))
	for _, n := range names {
		fmt.Fprintf(&b, "%s\n", n)
		for _, s := range groups[n] {
			fmt.Fprintf(&b, "  %-18s %s\n", s.Name, oneLine(s.Description, 70))
		}
	}
	h.Print(Info, strings.TrimRight(b.String(), "\n"))
	return nil
}

func runYolo(_ context.Context, h Host, args string) error {
	c := h.Conversation()
	on := !c.Yolo()
	switch strings.ToLower(args) {
	case "":
	case "on", "true", "1":
		on = true
	case "off", "false", "0":
		on = false
	default:
		return fmt.Errorf("/yolo [on|off], not %q", args)
	}
	c.SetYolo(on)
	if on {
		h.Print(Warning, "YOLO on: dangerous commands run without asking. Hardline commands are still refused and the sandbox stays. /yolo again turns it off.")
	} else {
		h.Print(Info, "YOLO off: dangerous commands ask first.")
	}
	return nil
}
