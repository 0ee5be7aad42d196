// Starts and stops the test control plane (test/k8s-harness: etcd + kube-apiserver + controllers
// + kwok simulating nodes) as a child process, reads its READY line, and can restart it on the same
// data directory (same port, same data) or ask it to compact etcd (to provoke 410 Gone).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "child_process.h"

#include "common/status.h"

namespace quotient::k8s_integration {

class HarnessProcess {
 public:
  HarnessProcess(std::string binary, std::string crds_dir, std::string data_dir,
                 std::vector<std::string> extra_args);
  ~HarnessProcess();
  HarnessProcess(const HarnessProcess&) = delete;
  HarnessProcess& operator=(const HarnessProcess&) = delete;

  // Starts the process and waits (at most `timeout_s`) for "READY <kubeconfig> <port> <control>".
  Status Start(int timeout_s = 240);
  // SIGTERM and wait for exit.
  Status Stop();
  Status Restart() {
    if (Status s = Stop(); !s.ok()) return s;
    return Start();
  }
  // Compacts etcd at its current revision; returns the revision.
  Result<std::string> Compact() const;

  const std::string& admin_kubeconfig() const { return admin_kubeconfig_; }
  std::string scheduler_kubeconfig() const { return data_dir_ + "/scheduler.kubeconfig"; }
  const std::string& data_dir() const { return data_dir_; }
  int port() const { return port_; }
  pid_t pid() const { return process_ ? process_->pid() : -1; }
  // The last lines the harness wrote to its log (for failure messages).
  std::string LogTail() const;

 private:
  std::string binary_;
  std::string crds_dir_;
  std::string data_dir_;
  std::vector<std::string> extra_args_;
  std::unique_ptr<ChildProcess> process_;
  std::string admin_kubeconfig_;
  int port_ = 0;
  int control_port_ = 0;
};

}  // namespace quotient::k8s_integration
