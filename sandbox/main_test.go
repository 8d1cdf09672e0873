package sandbox

import (
	"os"
	"testing"
)

// testRoles are the parts the test binary plays when a test re-executes
// it with one of these variables set, besides the sandbox helper.
var testRoles = map[string]func(value string){}

// The test binary is its own sandbox helper: Wrap re-executes it.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	for env, role := range testRoles {
		if v, ok := os.LookupEnv(env); ok {
			os.Unsetenv(env)
			role(v)
		}
	}
	os.Exit(m.Run())
}
