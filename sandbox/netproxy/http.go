package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// serveHTTP serves one HTTP proxy request on c: a CONNECT tunnel or a
// plain request in absolute form. A forwarded response ends the
// connection, so that no framing has to be kept across requests.
func (s *Server) serveHTTP(ctx context.Context, c net.Conn, br *bufio.Reader) {
	req, err := http.ReadRequest(br)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			reply(c, http.StatusBadRequest, "", "hermes sandbox proxy: "+err.Error())
		}
		return
	}
	if req.Method == http.MethodConnect {
		s.connect(ctx, c, br, req)
		return
	}
	s.forward(ctx, c, req)
}

// connect opens a tunnel to req.Host for an allowed host.
func (s *Server) connect(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request) {
	host, port, err := net.SplitHostPort(req.Host)
	if err != nil || host == "" || port == "" {
		reply(c, http.StatusBadRequest, "", fmt.Sprintf("hermes sandbox proxy: CONNECT %q: want host:port", req.Host))
		return
	}
	if why := s.decide(ctx, host); why != "" {
		refuse(c, why)
		return
	}
	up, err := s.dial(ctx, net.JoinHostPort(host, port))
	if err != nil {
		reply(c, http.StatusBadGateway, "", fmt.Sprintf("hermes sandbox proxy: %s: %v", req.Host, err))
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	splice(c, br, up) // br may hold what the client sent after CONNECT
}

// Headers that concern one hop, not the request: a proxy drops them.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Upgrade", "Expect"}

// forward sends one plain HTTP request on to an allowed host and its
// response back.
func (s *Server) forward(ctx context.Context, c net.Conn, req *http.Request) {
	defer req.Body.Close()
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		reply(c, http.StatusBadRequest, "", fmt.Sprintf("hermes sandbox proxy: %s %s: send http:// URLs in absolute form, and use CONNECT for https", req.Method, req.RequestURI))
		return
	}
	host := req.URL.Hostname()
	if why := s.decide(ctx, host); why != "" {
		refuse(c, why)
		return
	}
	port := req.URL.Port()
	if port == "" {
		port = "80"
	}
	up, err := s.dial(ctx, net.JoinHostPort(host, port))
	if err != nil {
		reply(c, http.StatusBadGateway, "", fmt.Sprintf("hermes sandbox proxy: %s: %v", req.URL.Host, err))
		return
	}
	defer up.Close()
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		// The body is read at once below; tell the client to send it.
		if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
			return
		}
	}
	out := req.Clone(ctx)
	for _, name := range strings.Split(req.Header.Get("Connection"), ",") {
		out.Header.Del(strings.TrimSpace(name))
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Close = true // one request per upstream connection
	if err := out.Write(up); err != nil {
		reply(c, http.StatusBadGateway, "", fmt.Sprintf("hermes sandbox proxy: %s: %v", req.URL.Host, err))
		return
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), req)
	if err != nil {
		reply(c, http.StatusBadGateway, "", fmt.Sprintf("hermes sandbox proxy: %s: %v", req.URL.Host, err))
		return
	}
	defer resp.Body.Close()
	resp.Close = true // and one per client connection: no framing to keep
	resp.Write(c)
}

// refuse answers a host that may not be reached: 403, the reason in the
// status line (which tools print) and in the body.
func refuse(w io.Writer, why refusal) {
	reply(w, http.StatusForbidden, "Forbidden by the hermes sandbox: "+string(why),
		"hermes sandbox: "+string(why)+", so commands cannot reach it. "+help)
}

// reply writes a text response that ends the connection. reason replaces
// the status text when set.
func reply(w io.Writer, code int, reason, body string) {
	if reason == "" {
		reason = http.StatusText(code)
	}
	body += "\n"
	resp := &http.Response{
		Status: strconv.Itoa(code) + " " + reason, StatusCode: code, ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Close: true,
	}
	resp.Write(w)
}
