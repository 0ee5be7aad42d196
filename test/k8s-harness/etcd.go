package main

import (
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startEtcd starts the embedded etcd on the fixed loopback ports, retrying for up to 10 s while
// a port is still held by the previous process of a restart.
func startEtcd(dir string, p *ports) (*embed.Etcd, string, error) {
	client, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", p.EtcdClient))
	peer, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", p.EtcdPeer))
	deadline := time.Now().Add(10 * time.Second)
	for {
		cfg := embed.NewConfig()
		cfg.Name = "harness"
		cfg.Dir = dir
		cfg.LogLevel = "error"
		cfg.UnsafeNoFsync = true // test data: speed over durability
		cfg.ListenClientUrls = []url.URL{*client}
		cfg.AdvertiseClientUrls = []url.URL{*client}
		cfg.ListenPeerUrls = []url.URL{*peer}
		cfg.AdvertisePeerUrls = []url.URL{*peer}
		cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name) // after changing the peer URLs
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			if errors.Is(err, syscall.EADDRINUSE) && time.Now().Before(deadline) {
				time.Sleep(200 * time.Millisecond)
				continue
			}
			return nil, "", err
		}
		select {
		case <-e.Server.ReadyNotify():
			return e, client.String(), nil
		case <-time.After(60 * time.Second):
			e.Close()
			return nil, "", fmt.Errorf("not ready after 60s")
		}
	}
}
