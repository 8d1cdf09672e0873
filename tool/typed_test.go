package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type testItem struct {
	ID     string `json:"id"`
	Status string `json:"status" enum:"open,done"`
	Note   string `json:"note,omitempty" jsonschema:"A remark."`
}

type testArgs struct {
	Query   string     `json:"query" jsonschema:"What to look for."`
	Limit   int        `json:"limit,omitempty" jsonschema:"How many." minimum:"1" maximum:"10" default:"3"`
	Timeout *float64   `json:"timeout,omitempty" jsonschema:"Seconds."`
	Body    *string    `json:"body"`
	Tags    []string   `json:"tags,omitzero" maxItems:"4"`
	Items   []testItem `json:"items,omitempty"`
	Verbose bool       `json:"verbose,omitempty" default:"false"`
	Skipped string     `json:"-"`
	hidden  string
}

func TestDerivedSchemaIsWhatProvidersAccept(t *testing.T) {
	got, err := SchemaFor[testArgs]()
	if err != nil {
		t.Fatal(err)
	}
	// Type object, closed objects at every level, required only without
	// omitempty/omitzero, no nullable types, no $schema or $id.
	want := `{
	  "type": "object",
	  "properties": {
	    "query": {"type": "string", "description": "What to look for."},
	    "limit": {"type": "integer", "description": "How many.", "minimum": 1, "maximum": 10, "default": 3},
	    "timeout": {"type": "number", "description": "Seconds."},
	    "body": {"type": "string"},
	    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
	    "items": {
	      "type": "array",
	      "items": {
	        "type": "object",
	        "properties": {
	          "id": {"type": "string"},
	          "status": {"type": "string", "enum": ["open", "done"]},
	          "note": {"type": "string", "description": "A remark."}
	        },
	        "required": ["id", "status"],
	        "additionalProperties": false
	      }
	    },
	    "verbose": {"type": "boolean", "default": false}
	  },
	  "required": ["query", "body"],
	  "additionalProperties": false
	}`
	assertSameJSON(t, got, want)
}

func TestArgumentsWithoutFieldsStillHaveProperties(t *testing.T) {
	got, err := SchemaFor[struct{}]()
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, `{"type":"object","properties":{},"additionalProperties":false}`)
}

func TestHandWrittenParametersWin(t *testing.T) {
	hand := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`)
	tl := Must(New(Spec{Name: "t", Parameters: hand}, func(ctx context.Context, c Call, a testArgs) (Result, error) {
		return Text(a.Query), nil
	}))
	if got := string(tl.Spec().Parameters); got != string(hand) {
		t.Fatalf("Parameters = %s, want the hand-written schema", got)
	}
}

func TestCallsArriveDecoded(t *testing.T) {
	var seen []testArgs
	tl := Must(New(Spec{Name: "t"}, func(ctx context.Context, c Call, a testArgs) (Result, error) {
		seen = append(seen, a)
		return Text("ok"), nil
	}))
	for _, args := range []string{`{"query":"x","limit":2,"body":"b","items":[{"id":"1","status":"done"}]}`, ``, ` null `} {
		res, err := tl.Run(context.Background(), Call{Name: "t", Args: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("args %q: %+v, %v", args, res, err)
		}
	}
	if a := seen[0]; a.Query != "x" || a.Limit != 2 || *a.Body != "b" || a.Items[0].Status != "done" {
		t.Fatalf("decoded %+v", a)
	}
	if !reflect.DeepEqual(seen[1], testArgs{}) || !reflect.DeepEqual(seen[2], testArgs{}) {
		t.Fatalf("empty arguments decoded to %+v and %+v, want zero values", seen[1], seen[2])
	}
}

func TestArgumentsThatDoNotDecodeAreAResultTheModelReads(t *testing.T) {
	called := false
	tl := Must(New(Spec{Name: "search"}, func(ctx context.Context, c Call, a testArgs) (Result, error) {
		called = true
		return Text("ok"), nil
	}))
	res, err := tl.Run(context.Background(), Call{Name: "search", Args: json.RawMessage(`{"limit":"three"}`)})
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content, "search: invalid arguments: ") || called {
		t.Fatalf("result %+v, err %v, called %v", res, err, called)
	}
}

func TestInvalidArgsShapesTheFailure(t *testing.T) {
	tl := Must(New(Spec{Name: "search"}, func(ctx context.Context, c Call, a testArgs) (Result, error) {
		return Text("ok"), nil
	}, InvalidArgs(func(err error) Result {
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return Error(string(b))
	})))
	res, err := tl.Run(context.Background(), Call{Name: "search", Args: json.RawMessage(`{"query":`)})
	var out map[string]string
	if err != nil || !res.IsError || json.Unmarshal([]byte(res.Content), &out) != nil || out["error"] == "" {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestArgumentTypesThatCannotBeASchemaAreRefused(t *testing.T) {
	type minOnString struct {
		S string `json:"s" minimum:"1"`
	}
	type maxItemsOnInt struct {
		N int `json:"n" maxItems:"2"`
	}
	type enumNotJSON struct {
		N int `json:"n" enum:"one,two"`
	}
	type defaultBelowMinimum struct {
		N int `json:"n" minimum:"1" default:"0"`
	}
	type channel struct {
		C chan int `json:"c"`
	}
	cases := []struct {
		name string
		new  func() (Tool, error)
		want string
	}{
		{"not an object", func() (Tool, error) { return newFor[int]() }, "not a JSON object"},
		{"a list", func() (Tool, error) { return newFor[[]string]() }, "not a JSON object"},
		{"minimum on a string", func() (Tool, error) { return newFor[minOnString]() }, "minimum"},
		{"maxItems on an integer", func() (Tool, error) { return newFor[maxItemsOnInt]() }, "maxItems"},
		{"enum values of the wrong type", func() (Tool, error) { return newFor[enumNotJSON]() }, "enum"},
		{"default outside the schema", func() (Tool, error) { return newFor[defaultBelowMinimum]() }, "default"},
		{"a channel", func() (Tool, error) { return newFor[channel]() }, "unsupported"},
		{"no function", func() (Tool, error) { return New[testArgs](Spec{Name: "t"}, nil) }, "nil function"},
	}
	for _, c := range cases {
		_, err := c.new()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Must did not panic on an error")
		}
	}()
	Must(newFor[int]())
}

func newFor[A any]() (Tool, error) {
	return New(Spec{Name: "t"}, func(ctx context.Context, c Call, a A) (Result, error) { return Text(""), nil })
}

func assertSameJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("schema\n%s\nwant\n%s", got, want)
	}
}

// BenchmarkNewDerivesSchema is the start-up cost of one typed tool: the
// built-in tables pay it once per tool when the runtime is assembled.
func BenchmarkNewDerivesSchema(b *testing.B) {
	fn := func(ctx context.Context, c Call, a testArgs) (Result, error) { return Text(""), nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(Spec{Name: "t"}, fn); err != nil {
			b.Fatal(err)
		}
	}
}
