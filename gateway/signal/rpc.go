package signal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// JSON-RPC error codes signal-cli answers besides the protocol's own
// (-32600 invalid request, -32601 no such method, -32602 invalid params,
// -32603 internal error).
const (
	codeUserError      = -1 // a recipient or group that does not exist, a bad argument
	codeIOError        = -3 // the Signal server could not be reached
	codeUntrustedKey   = -4 // the recipient's safety number changed
	codeRateLimitError = -5 // the Signal server rate limited the account
)

// rpcError is an error object of a JSON-RPC answer.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// sendResult is what send answers: the message's timestamp (its id) and
// one result per recipient.
type sendResult struct {
	Timestamp int64           `json:"timestamp"`
	Results   []recipientSent `json:"results"`
}

// recipientSent is one recipient's outcome of a send.
type recipientSent struct {
	RecipientAddress struct {
		UUID   string `json:"uuid"`
		Number string `json:"number"`
	} `json:"recipientAddress"`
	Type              string `json:"type"` // SUCCESS, RATE_LIMIT_FAILURE, UNREGISTERED_FAILURE, IDENTITY_FAILURE, NETWORK_FAILURE, PROOF_REQUIRED_FAILURE
	RetryAfterSeconds int64  `json:"retryAfterSeconds,omitempty"`
}

var rpcID atomic.Int64

// call makes one JSON-RPC call on the daemon's /api/v1/rpc and decodes
// its result into out (nil: ignored). The account is added to params, so
// a daemon serving several accounts knows which one sends.
func (a *Adapter) call(ctx context.Context, method string, params map[string]any, out any) error {
	if params == nil {
		params = map[string]any{}
	}
	params["account"] = a.o.Account
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": strconv.FormatInt(rpcID.Add(1), 10)})
	if err != nil {
		return fmt.Errorf("signal %s: %w", method, err)
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/api/v1/rpc", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("signal %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return fmt.Errorf("signal %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("signal %s: reading the answer: %w", method, err)
	}
	var ans struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("signal %s: HTTP %s", method, resp.Status)
		}
		return fmt.Errorf("signal %s: an answer that is not JSON-RPC: %w", method, err)
	}
	if ans.Error != nil {
		return classify(method, ans.Error)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("signal %s: HTTP %s", method, resp.Status)
	}
	if out != nil && len(ans.Result) > 0 {
		if err := json.Unmarshal(ans.Result, out); err != nil {
			return fmt.Errorf("signal %s: reading the result: %w", method, err)
		}
	}
	return nil
}

// classify turns a JSON-RPC error into what the gateway acts on: a rate
// limit waits out its retryAfterSeconds; a recipient that is not on
// Signal, a group the account is not in, a changed safety number, bad
// parameters are refused for good; an I/O failure or an internal error
// stays a plain error the gateway retries.
func classify(method string, e *rpcError) error {
	err := fmt.Errorf("signal %s: %w", method, e)
	switch e.Code {
	case codeRateLimitError:
		return &gateway.SendError{RetryAfter: retryAfterOf(e.Data), Status: http.StatusTooManyRequests, Err: err}
	case codeUserError, codeUntrustedKey, -32600, -32601, -32602:
		return &gateway.SendError{Permanent: true, Err: err}
	}
	return err
}

// defaultRetryAfter is the wait after a rate limit that gave none.
const defaultRetryAfter = 30 * time.Second

// retryAfterOf reads the longest retryAfterSeconds of the failed
// recipients in an error's data ({"response": {"results": [...]}}).
func retryAfterOf(data json.RawMessage) time.Duration {
	var d struct {
		Response sendResult `json:"response"`
	}
	if len(data) > 0 && json.Unmarshal(data, &d) == nil {
		if s := longestRetry(d.Response.Results); s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return defaultRetryAfter
}

func longestRetry(rs []recipientSent) int64 {
	var most int64
	for _, r := range rs {
		most = max(most, r.RetryAfterSeconds)
	}
	return most
}

// resultError reads a send's per-recipient results: when no recipient
// got the message, the first failure says why (a direct chat has one
// recipient; in a group, one member's failure does not fail the send).
func resultError(method string, r sendResult) error {
	if len(r.Results) == 0 {
		return nil
	}
	for _, x := range r.Results {
		if x.Type == "SUCCESS" {
			return nil
		}
	}
	x := r.Results[0]
	who := x.RecipientAddress.Number
	if who == "" {
		who = x.RecipientAddress.UUID
	}
	err := fmt.Errorf("signal %s: %s for %s", method, x.Type, who)
	switch x.Type {
	case "RATE_LIMIT_FAILURE", "PROOF_REQUIRED_FAILURE":
		d := defaultRetryAfter
		if s := longestRetry(r.Results); s > 0 {
			d = time.Duration(s) * time.Second
		}
		return &gateway.SendError{RetryAfter: d, Status: http.StatusTooManyRequests, Err: err}
	case "UNREGISTERED_FAILURE", "IDENTITY_FAILURE":
		return &gateway.SendError{Permanent: true, Err: err}
	}
	return err
}
