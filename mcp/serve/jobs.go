package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/tool/approval"
)

// roundTripVersion is the first protocol version on which a server may
// not send requests (elicitation) while serving one: it returns them as
// input requests of the tool call's result, and the client calls again
// with the answers (multi round-trip requests, SEP-2322).
const roundTripVersion = "2026-07-28"

// roundTrips reports whether the client of ss takes its approvals as
// input requests: it declared elicitation on a protocol version that
// forbids asking directly.
func roundTrips(ss *sdk.ServerSession) bool {
	if !canElicit(ss) {
		return false
	}
	return ss.InitializeParams().ProtocolVersion >= roundTripVersion
}

// A job is a run that outlives one request: an approval ends the
// request with an input request, and the client's next call (carrying
// the job's id as its request state) answers it and waits on.
type job struct {
	id     string
	cancel context.CancelFunc
	p      *progress
	asks   chan *pendingApproval // approvals for the client
	done   chan struct{}         // closed when the run ended
	res    *sdk.CallToolResult
	out    RunOut
	err    error

	mu       sync.Mutex
	asking   *pendingApproval // the approval the last round put to the client
	detached bool             // no request waits on the job
}

// keptJobs bounds the runs that ended while their client was away
// (answering an approval that permissions_respond answered first): each
// is kept for the client's next call until there are more than this.
const keptJobs = 100

// sweepJobs forgets ended runs nobody collected beyond keptJobs.
func (s *Server) sweepJobs() {
	ended := 0
	for id, j := range s.jobs {
		select {
		case <-j.done:
			if ended++; ended > keptJobs {
				delete(s.jobs, id)
			}
		default:
		}
	}
}

// startJob starts the run in the background and waits on it.
func (s *Server) startJob(ctx context.Context, req *sdk.CallToolRequest, o app.ConversationOptions, prompt string, p *progress) (*sdk.CallToolResult, RunOut, error) {
	if req.Params.RequestState != "" {
		return s.resumeJob(ctx, req)
	}
	b := make([]byte, 16)
	rand.Read(b)
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	j := &job{id: "run_" + hex.EncodeToString(b), cancel: cancel, p: p, asks: make(chan *pendingApproval), done: make(chan struct{})}
	o.Approve = func(ctx context.Context, pr approval.Prompt) (approval.Choice, error) {
		return s.approvals.wait(ctx, pr, func(ctx context.Context, pa *pendingApproval) {
			select {
			case j.asks <- pa:
			case <-ctx.Done():
			}
		})
	}
	s.jobsMu.Lock()
	s.sweepJobs()
	s.jobs[j.id] = j
	s.jobsMu.Unlock()
	go func() {
		defer cancel()
		j.res, j.out, j.err = s.execute(jctx, o, prompt, p)
		close(j.done)
	}()
	return s.await(ctx, j)
}

// resumeJob takes the client's answer to the job's approval and waits on.
func (s *Server) resumeJob(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, RunOut, error) {
	s.jobsMu.Lock()
	j := s.jobs[req.Params.RequestState]
	s.jobsMu.Unlock()
	if j == nil {
		return nil, RunOut{}, errors.New("this run is no longer waiting for an answer (it ended, or its approval timed out): " +
			"find its conversation with conversations_list")
	}
	j.p.attach(req)
	j.mu.Lock()
	j.detached = false
	pa := j.asking
	j.asking = nil
	j.mu.Unlock()
	if pa != nil {
		if res, ok := req.Params.InputResponses[pa.ID].(*sdk.ElicitResult); ok {
			pa.offer(elicited(res))
		} else {
			pa.offer(answer{choice: approval.Deny, by: "client"})
		}
	}
	return s.await(ctx, j)
}

// await returns the run's result, or ends the request with the next
// approval as an input request. The request ending first interrupts
// the run.
func (s *Server) await(ctx context.Context, j *job) (*sdk.CallToolResult, RunOut, error) {
	select {
	case <-j.done:
		s.dropJob(j)
		return j.res, j.out, j.err
	case pa := <-j.asks:
		j.mu.Lock()
		j.asking, j.detached = pa, true
		j.mu.Unlock()
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{pa.ID: elicitation(pa)}, RequestState: j.id}, RunOut{}, nil
	case <-ctx.Done():
		j.cancel()
		<-j.done
		s.dropJob(j)
		return nil, RunOut{}, ctx.Err()
	}
}

func (s *Server) dropJob(j *job) {
	s.jobsMu.Lock()
	delete(s.jobs, j.id)
	s.jobsMu.Unlock()
}
