package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/tool"
)

// A tool is one function and one struct: the struct's fields and tags are
// the schema the model sees, and each call arrives decoded.
func ExampleNew() {
	type weather struct {
		City  string `json:"city" jsonschema:"The city to look up."`
		Units string `json:"units,omitempty" jsonschema:"Temperature units." enum:"celsius,fahrenheit" default:"celsius"`
	}
	weatherTool := tool.Must(tool.New(
		tool.Spec{Name: "weather", Description: "Current weather in a city.", Toolset: "demo", Class: tool.Parallel},
		func(ctx context.Context, call tool.Call, args weather) (tool.Result, error) {
			if args.Units == "" {
				args.Units = "celsius"
			}
			return tool.Text(fmt.Sprintf("%s: 21 degrees %s", args.City, args.Units)), nil
		}))

	var schema bytes.Buffer
	json.Indent(&schema, weatherTool.Spec().Parameters, "", "  ")
	fmt.Println(schema.String())

	reg := tool.NewRegistry(weatherTool)
	exec := &tool.Executor{Resolve: reg.Get, Names: reg.Names}
	for _, o := range exec.Execute(context.Background(), []tool.Call{
		{ID: "1", Name: "weather", Args: json.RawMessage(`{"city":"Lyon"}`)},
		{ID: "2", Name: "weather", Args: json.RawMessage(`{"city":"Oslo","units":"kelvin"}`)},
	}) {
		fmt.Printf("%s: %s\n", o.Status, o.Result.Content)
	}
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "city": {
	//       "type": "string",
	//       "description": "The city to look up."
	//     },
	//     "units": {
	//       "type": "string",
	//       "description": "Temperature units.",
	//       "default": "celsius",
	//       "enum": [
	//         "celsius",
	//         "fahrenheit"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "city"
	//   ],
	//   "additionalProperties": false
	// }
	// ok: Lyon: 21 degrees celsius
	// error: Error: arguments for weather do not match its schema:
	// - validating /properties/units: enum: kelvin does not equal any of: [celsius fahrenheit]
	// The tool was not run. Fix the arguments and retry.
}
