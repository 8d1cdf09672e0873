package tui

import (
	"charm.land/lipgloss/v2"
)

// theme holds the styles of the UI.
type theme struct {
	user, userMark   lipgloss.Style
	reasoning        lipgloss.Style
	toolOK, toolFail lipgloss.Style
	toolRun, dim     lipgloss.Style
	info             lipgloss.Style
	warning, err     lipgloss.Style
	status, statusHi lipgloss.Style
	fallback         lipgloss.Style
	modal, modalHi   lipgloss.Style
	prompt           lipgloss.Style
}

func defaultTheme() theme {
	gray := lipgloss.Color("8")
	return theme{
		user:      lipgloss.NewStyle().Bold(true),
		userMark:  lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true),
		reasoning: lipgloss.NewStyle().Foreground(gray).Italic(true),
		toolOK:    lipgloss.NewStyle().Foreground(lipgloss.Color("10")),
		toolFail:  lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
		toolRun:   lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		dim:       lipgloss.NewStyle().Foreground(gray),
		info:      lipgloss.NewStyle().Foreground(lipgloss.Color("7")),
		warning:   lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		err:       lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Bold(true),
		status:    lipgloss.NewStyle().Foreground(lipgloss.Color("7")).Background(lipgloss.Color("236")),
		statusHi:  lipgloss.NewStyle().Foreground(lipgloss.Color("15")).Background(lipgloss.Color("236")).Bold(true),
		fallback:  lipgloss.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("11")).Bold(true),
		modal:     lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("11")).Padding(0, 1),
		modalHi:   lipgloss.NewStyle().Reverse(true).Bold(true),
		prompt:    lipgloss.NewStyle().Foreground(lipgloss.Color("12")).Bold(true),
	}
}
