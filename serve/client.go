package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Client calls a gnnserve server over HTTP.
type Client struct {
	// URL is the server's base URL, such as "http://127.0.0.1:8080".
	URL string
	// HTTP is the client used (http.DefaultClient when nil).
	HTTP *http.Client
}

// APIError is an answer other than 200: its status and the server's
// message.
type APIError struct {
	Status  int
	Message string
}

// Error returns the status and the server's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("gnnserve: %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// Predict asks POST /v1/predict.
func (c *Client) Predict(ctx context.Context, req *PredictRequest) (*PredictResponse, error) {
	var resp PredictResponse
	return &resp, c.do(ctx, http.MethodPost, "/v1/predict", req, &resp)
}

// Embed asks POST /v1/embed.
func (c *Client) Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error) {
	var resp EmbedResponse
	return &resp, c.do(ctx, http.MethodPost, "/v1/embed", req, &resp)
}

// Refresh asks POST /v1/refresh.
func (c *Client) Refresh(ctx context.Context) (*RefreshResponse, error) {
	var resp RefreshResponse
	return &resp, c.do(ctx, http.MethodPost, "/v1/refresh", nil, &resp)
}

// Health asks GET /healthz; a server that is loading or stopping gives an
// *APIError of status 503.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var resp Health
	return &resp, c.do(ctx, http.MethodGet, "/healthz", nil, &resp)
}

// do sends body (JSON, none when nil) and decodes a 200 answer into out,
// or returns an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.URL, "/")+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e errorBody
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		if path == "/healthz" {
			var h Health
			if json.Unmarshal(b, &h) == nil && h.Status != "" {
				e.Error = h.Status
			}
		}
		return &APIError{Status: resp.StatusCode, Message: e.Error}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("gnnserve: decoding the answer to %s: %w", path, err)
	}
	return nil
}
