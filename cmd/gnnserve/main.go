// Command gnnserve serves a trained gnn model over HTTP/JSON (package
// serve): predicted classes and probabilities, and embeddings, for nodes
// of a graph and for new nodes given with their features and edges.
//
//	gnnserve -data ../shared/data/planetoid/cora -model cora.gnnmodel -addr 127.0.0.1:8080
//	gnnserve -data DIR -arch sage -layers 3 -hidden 256 -params sage.params -cache
//	gnnserve -data DIR -model cora.gnnmodel -once -out predictions.csv
//	gnnserve -bench http://127.0.0.1:8080 -bench-requests 10000 -bench-clients 50
//
// The graph and features come from -data, in any layout the examples read
// (Planetoid text, OGB's raw layout; Planetoid features row-normalised as
// the examples train on them), or, without -data, from a generated
// planted-partition graph (-nodes, -degree, -features, -classes, -seed).
// The model is a model file (-model, as the examples' -save writes it) or,
// for parameter files without an architecture (nn.SaveParams, as
// examples/sage wrote them before model files), an architecture given by
// flags (-arch sage, -layers, -hidden, -aggregator, -params).
//
// The server listens at once and answers GET /healthz with 503 until the
// data and the model are loaded, then serves POST /v1/predict, /v1/embed,
// /v1/refresh and GET /metrics (see README.md). On SIGTERM or SIGINT it stops
// accepting connections, lets the requests in flight finish (at most
// -shutdown-timeout) and exits.
//
// -once writes predictions for all nodes (or -ids) as CSV
// (node,class,p0,p1,...) and exits, computed exactly as the server would
// answer them. -bench runs a load client against a server: -bench-requests
// requests of -bench-nodes random nodes from -bench-clients concurrent
// clients, and prints the latency percentiles, the throughput and the
// server's heap before and after.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gnngo/gnn/serve"
)

func main() {
	o := defaults()
	fs := flag.NewFlagSet("gnnserve", flag.ExitOnError)
	o.register(fs)
	err := o.parse(fs, os.Args[1:])
	if err == nil {
		err = run(&o, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gnnserve:", err)
		os.Exit(1)
	}
}

// run does what the flags ask: a load test, predictions to CSV, or serving
// until a signal.
func run(o *options, stdout io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.Bench != "" {
		return runBench(o, stdout)
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	s, err := serve.New(cfg)
	if err != nil {
		return err
	}
	if o.Once {
		if err := load(o, s); err != nil {
			return err
		}
		defer s.Close()
		return once(o, s, stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return listen(ctx, o, s)
}

// listen serves s at -addr, loading the data and the model in the
// background, until ctx is done; then it shuts down gracefully.
func listen(ctx context.Context, o *options, s *serve.Server) error {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	log.Printf("listening on http://%s (503 until loaded)", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	loaded := make(chan error, 1)
	go func() { loaded <- load(o, s) }()
	var failure error
	select {
	case err := <-loaded:
		if err != nil {
			failure = err
			break
		}
		log.Printf("ready")
		select {
		case <-ctx.Done():
		case err := <-served:
			failure = err
		}
	case <-ctx.Done():
	case err := <-served:
		failure = err
	}
	log.Printf("shutting down: finishing the requests in flight (at most %v)", o.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && failure == nil {
		failure = fmt.Errorf("shutdown: %w", err)
	}
	s.Close()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) && failure == nil {
		failure = err
	}
	return failure
}

// load reads the data and the model and starts s.
func load(o *options, s *serve.Server) error {
	t0 := time.Now()
	d, classes, err := o.data()
	if err != nil {
		return err
	}
	log.Printf("data: %d nodes, %d edges, %d features (%.1f s)", d.Graph.NumDst(), d.Graph.NumEdges(), d.Features.Shape()[1], time.Since(t0).Seconds())
	t1 := time.Now()
	m, err := o.model(d, classes)
	if err != nil {
		return err
	}
	if err := s.Start(d, m); err != nil {
		return err
	}
	log.Printf("model: %d layers, model fan-outs %v, -fanouts %s, cache %v (%.1f s)", m.Stack.NumLayers(), m.Fanouts, o.Fanouts, o.Cache, time.Since(t1).Seconds())
	return nil
}
