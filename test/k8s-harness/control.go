package main

// The control endpoint: plain HTTP on 127.0.0.1:<control port>, test hooks that a real cluster
// does not offer.
//   POST /compact  writes a key outside /registry, compacts etcd at the resulting revision and
//                  answers that revision. Every resourceVersion a client can have seen before is
//                  then older than the compaction, so a watch from it gets 410 Expired (with
//                  --apiserver-arg=--watch-cache=false; the watch cache would otherwise serve
//                  recent history from memory), except a watch from the newest one, which has
//                  lost nothing. The extra write matters: compacting at the newest resource's own
//                  revision R makes a watch from R-1 start exactly at R, and the API server answers
//                  that with 500 "etcd event received with PrevKv=nil" instead of 410.
//   GET  /healthz  "ok"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/embed"
)

func serveControl(ctx context.Context, ln net.Listener, etcd *embed.Etcd) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("POST /compact", func(w http.ResponseWriter, r *http.Request) {
		put, err := etcd.Server.Put(r.Context(), &pb.PutRequest{Key: []byte("/k8s-harness/compact"),
			Value: []byte(time.Now().UTC().Format(time.RFC3339Nano))})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rev := put.Header.Revision
		// Physical: answer only once the old revisions are really gone, so the next request
		// deterministically sees the compaction.
		_, err = etcd.Server.Compact(r.Context(), &pb.CompactionRequest{Revision: rev, Physical: true})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, rev)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "k8s-harness: control endpoint:", err)
	}
}
