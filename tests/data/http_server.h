// A tiny HTTP/1.0 server for the download tests: serves one fixed response to a bounded number of
// requests on 127.0.0.1 (ephemeral port), then stops.
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace runner::testing {

class HttpServer {
 public:
  // Answers up to `max_requests` requests (any path) with `status` and `body`; stops after them,
  // after 30 s without a request, or when destroyed.
  HttpServer(std::string body, int max_requests, int status = 200);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::string url(const std::string& path = "/cifar-10-binary.tar.gz") const;
  int served() const { return served_.load(); }

 private:
  void serve();

  std::string body_;
  int max_requests_;
  int status_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> served_{0};
  std::thread thread_;
};

}  // namespace runner::testing
