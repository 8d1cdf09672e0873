// Package tool defines what a tool is (Tool, Spec, Call, Result), the
// Registry the agent offers to the model, and the Executor that runs a
// batch of calls: one call directly, several on a bounded worker pool,
// with each tool's concurrency Class deciding what may overlap, and the
// results returned in the original call order whatever order they finish.
//
// Per call the Executor runs upstream Hermes' documented pipeline:
// resolve from the registry, pre_tool_call hooks, the dangerous-command
// check with an approval callback, the tool itself (with the call's
// arguments and task id), post_tool_call hooks. Every failure on the way
// (unknown tool, bad JSON, schema violation, a denied command, an error, a
// panic, a deadline) becomes a Result the model reads; Go errors from Run
// are reported to the model too, never dropped.
//
// A tool is usually one function and one argument struct: New derives
// the schema from the struct (SchemaFor: json tags name the properties,
// jsonschema tags describe them, a field is required unless omitempty,
// and enum, default, minimum, maximum, minItems and maxItems tags add what
// a Go type cannot say) and decodes every call into it; arguments that do
// not decode are a failed Result, shaped by InvalidArgs. The derived
// schema is one providers accept: an object, closed at every level, with
// no nullable types and no $schema or $id. A hand-written Spec.Parameters
// wins over the derivation, for schemas a struct cannot express.
//
// A running tool finds the Executor running it with ExecutorFrom and
// may run further calls through it (Executor.Run): each passes the same
// pipeline as a call of the model's.
//
// Concurrency: a Registry is safe for concurrent use. An Executor is safe
// for concurrent batches; its pool size may change while batches run.
package tool
