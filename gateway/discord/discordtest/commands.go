package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"unicode/utf8"
)

// Discord's limits on application commands.
const (
	maxCommands       = 100 // global CHAT_INPUT commands of an application
	maxCommandOptions = 25
	maxDescription    = 100
)

// commandName is the form of a command's and an option's name the fake
// accepts: lowercase letters, digits, - and _, 1 to 32 of them.
var commandName = regexp.MustCompile(`^[-_a-z0-9]{1,32}$`)

// Command is an application command as the bot registered it.
type Command struct {
	ID          string
	Type        int // 1: CHAT_INPUT (a slash command)
	Name        string
	Description string
	Options     []CommandOption
}

// CommandOption is one option of a command.
type CommandOption struct {
	Type        int // 3: string
	Name        string
	Description string
	Required    bool
}

// Commands returns the bot's global application commands, in the order
// of the last bulk overwrite.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Command, len(s.commands))
	for i, c := range s.commands {
		out[i] = c
		out[i].Options = slices.Clone(c.Options)
	}
	return out
}

// CommandsUpdated returns a channel that is closed at the next bulk
// overwrite the fake accepts.
func (s *Server) CommandsUpdated() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commandsSignal
}

// ApplicationID is the bot's application id: READY's application.id and
// the {application id} of /applications/{application id}/commands.
func (s *Server) ApplicationID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appID
}

// SetApplicationID changes the application id sessions identified from
// now on are told in READY.
func (s *Server) SetApplicationID(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appID = id
}

// wireCommand is a command in a bulk overwrite's body.
type wireCommand struct {
	Type        *int   `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Options     []struct {
		Type        int    `json:"type"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"options"`
}

// putCommands serves PUT /applications/{app}/commands: the bulk
// overwrite of the global commands. The list replaces the registered
// one whole, or, when Discord would refuse one command, not at all.
func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
	req := body(r)
	var cmds []wireCommand
	if err := json.Unmarshal(req.Body, &cmds); err != nil {
		apiError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	var got []Command
	seen := map[string]bool{}
	for i, c := range cmds {
		cmd, bad := checkCommand(c)
		if bad == "" && seen[cmd.Name] {
			bad = "name: Application command names must be unique"
		}
		if bad != "" {
			apiError(w, http.StatusBadRequest, 50035, fmt.Sprintf("Invalid Form Body: %d.%s", i, bad))
			return
		}
		seen[cmd.Name] = true
		got = append(got, cmd)
	}
	if len(got) > maxCommands {
		apiError(w, http.StatusBadRequest, 50035, fmt.Sprintf("Invalid Form Body: Must be %d or fewer in length.", maxCommands))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.PathValue("app") != s.appID {
		apiError(w, http.StatusNotFound, 10002, "Unknown Application")
		return
	}
	out := []any{}
	for i := range got {
		got[i].ID = s.newIDLocked()
		out = append(out, got[i].wire(s.appID))
	}
	s.commands = got
	close(s.commandsSignal)
	s.commandsSignal = make(chan struct{})
	writeJSON(w, http.StatusOK, out)
}

// checkCommand checks one command as Discord does; "" when valid, else
// the field and the reason.
func checkCommand(c wireCommand) (Command, string) {
	cmd := Command{Type: 1, Name: c.Name, Description: c.Description}
	if c.Type != nil {
		cmd.Type = *c.Type
	}
	switch {
	case cmd.Type != 1:
		return cmd, fmt.Sprintf("type: the fake knows CHAT_INPUT (1) commands only, got %d", cmd.Type)
	case !commandName.MatchString(c.Name):
		return cmd, fmt.Sprintf("name: String value did not match validation regex (%q)", c.Name)
	case !descriptionFits(c.Description):
		return cmd, fmt.Sprintf("description: Must be between 1 and %d in length (%d)", maxDescription, utf8.RuneCountInString(c.Description))
	case len(c.Options) > maxCommandOptions:
		return cmd, fmt.Sprintf("options: Must be %d or fewer in length.", maxCommandOptions)
	}
	optional := false
	for j, o := range c.Options {
		switch {
		case o.Type < 1 || o.Type > 11:
			return cmd, fmt.Sprintf("options.%d.type: Value must be one of (1 ... 11)", j)
		case !commandName.MatchString(o.Name):
			return cmd, fmt.Sprintf("options.%d.name: String value did not match validation regex (%q)", j, o.Name)
		case !descriptionFits(o.Description):
			return cmd, fmt.Sprintf("options.%d.description: Must be between 1 and %d in length", j, maxDescription)
		case o.Required && optional:
			return cmd, fmt.Sprintf("options.%d.required: Required options must be placed before non-required options", j)
		}
		optional = optional || !o.Required
		cmd.Options = append(cmd.Options, CommandOption{Type: o.Type, Name: o.Name, Description: o.Description, Required: o.Required})
	}
	return cmd, ""
}

func descriptionFits(d string) bool {
	n := utf8.RuneCountInString(d)
	return n >= 1 && n <= maxDescription
}

func (c Command) wire(appID string) map[string]any {
	opts := []any{}
	for _, o := range c.Options {
		opts = append(opts, map[string]any{"type": o.Type, "name": o.Name, "description": o.Description, "required": o.Required})
	}
	return map[string]any{
		"id": c.ID, "application_id": appID, "version": c.ID, "type": c.Type, "name": c.Name,
		"description": c.Description, "options": opts, "default_member_permissions": nil, "nsfw": false,
	}
}

// commandLocked returns a registered command by name.
func (s *Server) commandLocked(name string) (Command, bool) {
	for _, c := range s.commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}
