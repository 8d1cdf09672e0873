package shellhook

import (
	"fmt"

	"github.com/hermes-go/hermes/tool"
)

// name identifies the hook in reasons and warnings.
func (h *hook) name() string { return fmt.Sprintf("%s hook `%s`", h.event, clip(h.Command)) }

// decidePre turns a pre_tool_call run into the executor's answer: a block
// reason, or "" to go on (with call.Args possibly rewritten).
func (h *hook) decidePre(o outcome, call *tool.Call) string {
	resp, hasJSON, jsonErr := parseResponse(o.stdout)
	if o.startErr == nil && !o.timedOut && !o.cancelled && o.exit == 2 {
		why := ""
		if hasJSON {
			why = resp.reason()
		}
		if why == "" {
			why = clip(o.stderr)
		}
		if why == "" && !hasJSON {
			why = clip(o.stdout)
		}
		if why == "" {
			why = "no reason given"
		}
		return fmt.Sprintf("%s refused %s: %s", h.name(), call.Name, why)
	}
	if f := o.failure(h.Timeout); f != "" {
		msg := fmt.Sprintf("%s %s", h.name(), f)
		if s := clip(o.stderr); s != "" {
			msg += ": " + s
		}
		if h.FailOpen && !o.cancelled {
			h.opts.warn(msg + "; the call went on (fail_open)")
			return ""
		}
		return msg + ". The hook guards this tool, so the call was not run."
	}
	// Exit 0.
	if jsonErr != nil {
		h.opts.warn(fmt.Sprintf("%s for %s: stdout is not a JSON object, ignored: %v", h.name(), call.Name, jsonErr))
		return ""
	}
	if !hasJSON {
		return ""
	}
	if resp.blocks() {
		why := resp.reason()
		if why == "" {
			why = "no reason given"
		}
		return fmt.Sprintf("%s refused %s: %s", h.name(), call.Name, why)
	}
	if args, ok := resp.newArgs(); ok {
		call.Args = args
	} else if len(resp.Args) > 0 || len(resp.ToolInput) > 0 {
		h.opts.warn(fmt.Sprintf("%s for %s: replacement arguments are not a JSON object, ignored", h.name(), call.Name))
	}
	return ""
}

// applyPost applies a post_tool_call run to the result.
func (h *hook) applyPost(o outcome, call tool.Call, res *tool.Result) {
	if f := o.failure(h.Timeout); f != "" || o.exit != 0 {
		if f == "" {
			f = fmt.Sprintf("exited with status %d", o.exit)
		}
		msg := fmt.Sprintf("%s for %s %s", h.name(), call.Name, f)
		if s := clip(o.stderr); s != "" {
			msg += ": " + s
		}
		h.opts.warn(msg + "; the result was left as it was")
		return
	}
	resp, hasJSON, err := parseResponse(o.stdout)
	if err != nil || !hasJSON || resp.Result == nil {
		return
	}
	res.Content = *resp.Result
}
