package main

// Fixed ports per data directory: a restart on the same --dir must come back on the same API
// server port, so that a client under test that keeps running reconnects to the new process.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

type ports struct {
	APIServer  int `json:"apiserver"`
	EtcdClient int `json:"etcdClient"`
	EtcdPeer   int `json:"etcdPeer"`
	Control    int `json:"control"`
}

// loadOrPickPorts reads <dir>/ports.json, or on the first start picks four free 127.0.0.1 ports
// and writes them there.
func loadOrPickPorts(dir string) (*ports, error) {
	path := filepath.Join(dir, "ports.json")
	if text, err := os.ReadFile(path); err == nil {
		var p ports
		if err := json.Unmarshal(text, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if p.APIServer == 0 || p.EtcdClient == 0 || p.EtcdPeer == 0 || p.Control == 0 {
			return nil, fmt.Errorf("%s: a port is missing", path)
		}
		return &p, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	// Keep every probe listener open until all four are chosen, so they are distinct.
	var picked []int
	for range 4 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		picked = append(picked, l.Addr().(*net.TCPAddr).Port)
	}
	p := &ports{APIServer: picked[0], EtcdClient: picked[1], EtcdPeer: picked[2], Control: picked[3]}
	text, _ := json.MarshalIndent(p, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(text, '\n'), 0o600); err != nil {
		return nil, err
	}
	return p, os.Rename(tmp, path)
}

// listenRetry binds 127.0.0.1:port, retrying for up to 10 s while the address is in use: right
// after a restart the previous process may not have released it yet. (Go sets SO_REUSEADDR on
// Linux, so sockets in TIME_WAIT do not block the bind.)
func listenRetry(port int) (net.Listener, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			return ln, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}
