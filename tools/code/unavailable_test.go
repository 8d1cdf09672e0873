package code

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// Where scripts cannot run (a remote backend), the tool is not offered
// and a call says why.
func TestUnavailableIsNotOfferedAndRefusesSayingWhy(t *testing.T) {
	why := errors.New("execute_code: not available on the ssh backend")
	tl := New(Options{Unavailable: why})
	if err := tl.Spec().Check(); !errors.Is(err, why) {
		t.Fatalf("Check = %v", err)
	}
	res, err := tl.Run(context.Background(), tool.Call{Name: "execute_code", Args: []byte(`{"code":"print(1)"}`)})
	if err != nil || !res.IsError || !strings.Contains(res.Content, "not available on the ssh backend") {
		t.Fatalf("res %+v err %v", res, err)
	}
}
