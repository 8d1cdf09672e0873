package slash

import (
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/pricing"
)

// sessionCost prices the session's stored usage at its model's list
// price (llm/pricing), or says the price is unknown.
func sessionCost(u app.SessionUsage) string {
	model := u.Session.Model
	if model == "" {
		model = u.Model
	}
	return pricing.Describe(model, u.Session.Usage)
}
