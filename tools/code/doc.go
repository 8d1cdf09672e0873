// Package code is the execute_code tool: the model writes one Python
// script that calls the agent's tools as functions, in place of many tool
// calls in a row that would each resend the whole conversation.
//
// Each run gets a private directory (mode 0700) holding the script and a
// generated module, hermes_tools, with one function per tool the
// conversation offers (but Never), generated from the tools' JSON
// schemas: keyword arguments named as in the schema, required ones first,
// the tool's description as docstring. The tool's own description shows
// the same signatures, so a new tool needs no change here. The functions
// send one JSON object per line ({"token","tool","args"}) over a Unix
// socket in that directory, listening for that run alone, and read one
// back ({"ok","result"} or {"ok":false,"error"}); a failed call raises
// hermes_tools.ToolError. A connection whose first line lacks the run's
// random token is answered with a refusal and closed. Each call runs
// through the Executor that runs execute_code (tool.ExecutorFrom): the
// hooks, the approval of a terminal command (asked, or refused when
// nobody attends), the file tools' path rules, redaction and the result
// cap apply as to the model's own calls. terminal's background mode is
// refused, and a run makes at most Options.MaxToolCalls calls.
//
// The script runs with python3 (the interpreter itself, found once per
// process, without the site module and with PYTHONPATH naming only the
// run's directory and the interpreter's package directories) as a
// terminal command runs (Options.Start): in the conversation's sandbox,
// in the task's working directory, with the environment of a command,
// secret variables left out. Past its time limit its process group gets
// SIGTERM, then SIGKILL after 5 s; whatever it left running in its group
// is killed when it exits. stdout and stderr are read through bounded
// buffers: past the limit the result shows their head and tail, and the
// whole stdout (up to DefaultMaxSaved bytes) is saved to a file the model
// can read.
package code
