package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ServeHTTP answers the server's endpoints:
//
//	GET  /healthz      200 {"status":"ok",...} once started; 503 while loading or stopping
//	POST /v1/predict   PredictRequest -> PredictResponse
//	POST /v1/embed     EmbedRequest -> EmbedResponse
//	POST /v1/refresh   computes the cache again -> RefreshResponse
//	GET  /metrics      Prometheus text format
//
// Errors are {"error": "..."}: 400 for a malformed or invalid request, 404
// for an unknown path, 405 for a wrong method, 413 for a body over
// Config.MaxBodyBytes, 503 while loading or stopping, when overloaded or
// after Config.Timeout, 500 when the model fails.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	s.metrics.inFlight.Add(1)
	defer s.metrics.inFlight.Add(-1)
	rec := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	endpoint := r.URL.Path
	switch endpoint {
	case "/healthz":
		if method(rec, r, http.MethodGet) {
			s.health(rec)
		}
	case "/metrics":
		if method(rec, r, http.MethodGet) {
			rec.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			s.metrics.write(rec, len(s.queue))
		}
	case "/v1/predict":
		if method(rec, r, http.MethodPost) {
			var req PredictRequest
			s.query(rec, r, &req, func(ctx context.Context) (any, error) { return s.Predict(ctx, &req) })
		}
	case "/v1/embed":
		if method(rec, r, http.MethodPost) {
			var req EmbedRequest
			s.query(rec, r, &req, func(ctx context.Context) (any, error) { return s.Embed(ctx, &req) })
		}
	case "/v1/refresh":
		if method(rec, r, http.MethodPost) {
			resp, err := s.Refresh(r.Context())
			if err != nil {
				writeError(rec, err, 0)
			} else {
				writeJSON(rec, http.StatusOK, resp)
			}
		}
	default:
		endpoint = "other"
		writeJSON(rec, http.StatusNotFound, errorBody{fmt.Sprintf("no endpoint %s: the server answers /healthz, /metrics, /v1/predict, /v1/embed and /v1/refresh", r.URL.Path)})
	}
	s.metrics.request(endpoint, rec.code, time.Since(t0))
}

// statusWriter records the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

// WriteHeader records code and writes it.
func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// method answers 405 and returns false unless r uses want.
func method(w http.ResponseWriter, r *http.Request, want string) bool {
	if r.Method == want || (want == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	w.Header().Set("Allow", want)
	writeJSON(w, http.StatusMethodNotAllowed, errorBody{fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, want)})
	return false
}

// health answers GET /healthz.
func (s *Server) health(w http.ResponseWriter) {
	select {
	case <-s.stop:
		writeJSON(w, http.StatusServiceUnavailable, Health{Status: "stopping"})
		return
	default:
	}
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, Health{Status: "loading"})
		return
	}
	h := Health{Status: "ok", Nodes: s.data.Graph.NumDst(), Layers: s.model.Stack.NumLayers(), Classes: s.classes, Mode: s.mode()}
	if c := s.cache.Load(); c != nil {
		h.CacheGeneration = c.generation
	}
	writeJSON(w, http.StatusOK, h)
}

// query decodes the JSON body into req, runs answer under the request
// timeout and writes its result or error.
func (s *Server) query(w http.ResponseWriter, r *http.Request, req any, answer func(context.Context) (any, error)) {
	if !s.Ready() {
		writeError(w, s.notReady(), 0)
		return
	}
	if err := decode(w, r, req, s.cfg.MaxBodyBytes); err != nil {
		writeError(w, err, 0)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	defer cancel()
	resp, err := answer(ctx)
	if err != nil {
		writeError(w, err, s.cfg.Timeout)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// notReady is the error while loading or stopping.
func (s *Server) notReady() error {
	select {
	case <-s.stop:
		return errStopping
	default:
		return errLoading
	}
}

// decode reads one JSON value of at most limit bytes into v, rejecting
// unknown fields and trailing data.
func decode(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyError(err, limit)
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return bodyError(err, limit)
		}
		return badRequest("malformed JSON: more data after the request object")
	}
	return nil
}

// bodyError turns a decoding error into a 400 or a 413.
func bodyError(err error, limit int64) error {
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooLarge):
		return &requestError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the request body is over the limit of %d bytes", limit)}
	case errors.Is(err, io.EOF):
		return badRequest("empty request body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON: the body ends inside the object")
	case errors.As(err, &syntax):
		return badRequest("malformed JSON at byte %d: %v", syntax.Offset, err)
	case errors.As(err, &typ):
		return badRequest("malformed request: field %q wants %v, got a JSON %s", typ.Field, typ.Type, typ.Value)
	}
	return badRequest("malformed request: %v", err)
}

// writeError writes err's status and message.
func writeError(w http.ResponseWriter, err error, timeout time.Duration) {
	var re *requestError
	switch {
	case errors.As(err, &re):
		writeJSON(w, re.status, errorBody{re.msg})
	case errors.Is(err, context.DeadlineExceeded):
		writeJSON(w, http.StatusServiceUnavailable, errorBody{fmt.Sprintf("the request took longer than the limit of %v", timeout)})
	case errors.Is(err, context.Canceled):
		writeJSON(w, http.StatusServiceUnavailable, errorBody{"the request was cancelled"})
	case errors.Is(err, errLoading), errors.Is(err, errStopping):
		writeJSON(w, http.StatusServiceUnavailable, errorBody{err.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, errorBody{err.Error()})
	}
}

// writeJSON writes v as the JSON body with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\":%q}\n", "encoding the answer: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}
