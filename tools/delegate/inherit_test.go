package delegate

import (
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/agent"
)

// fillConfig sets every field of an agent.Config to a distinct non-zero
// value, so that a field a child silently loses shows up as a zero.
func fillConfig(t *testing.T) agent.Config {
	t.Helper()
	var c agent.Config
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("parent-" + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(1000 + i))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Func:
			f.Set(reflect.MakeFunc(f.Type(), func([]reflect.Value) []reflect.Value {
				panic("not called")
			}))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Interface, reflect.Struct:
			// set below, by type
		default:
			t.Fatalf("agent.Config.%s: kind %s not covered by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
	c.Client = instant
	c.Store = &store{}
	c.Compressor = &noCompressor{}
	c.Approver = DenyAll
	c.Session = agent.SessionMeta{ID: "parent-session", Source: "cli", Cwd: "/work"}
	return c
}

type noCompressor struct{ agent.Compressor }

// same reports whether two field values are the same value (functions
// by their code pointer, the rest deeply).
func same(a, b reflect.Value) bool {
	if a.Kind() == reflect.Interface && !a.IsNil() && !b.IsNil() {
		a, b = a.Elem(), b.Elem()
	}
	if a.Kind() == reflect.Func && b.Kind() == reflect.Func {
		return a.Pointer() == b.Pointer()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

func TestChildConfigInheritsEveryFieldItDoesNotList(t *testing.T) {
	parent := fillConfig(t)
	o := Options{Parent: parent}
	o.defaults()
	spec := ChildSpec{AgentID: "parent-AgentID/1", Depth: parent.Depth + 1, SessionID: "child", ParentSessionID: "parent-session",
		MaxIterations: 7, Approver: DenyAll}
	child := o.ChildConfig(spec)
	pv, cv := reflect.ValueOf(o.Parent), reflect.ValueOf(child)
	for i := range pv.NumField() {
		name := pv.Type().Field(i).Name
		_, differs := ChildDiffers[name]
		if !differs && !same(pv.Field(i), cv.Field(i)) {
			t.Errorf("agent.Config.%s is neither inherited by a child nor listed in ChildDiffers", name)
		}
	}
	for name := range ChildDiffers {
		if _, ok := pv.Type().FieldByName(name); !ok {
			t.Errorf("ChildDiffers lists %s, which agent.Config does not have", name)
		}
	}
	if child.Session.ParentID != "parent-session" || child.Session.Source != SessionSource || child.Session.Cwd != "/work" {
		t.Errorf("child session = %+v", child.Session)
	}
}
