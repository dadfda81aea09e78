// The test HTTP server: poll()-bounded accept loop on a background thread.
#include "http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace runner::testing {
namespace {

// Waits up to `timeout_ms` for `fd` to be readable.
bool readable(int fd, int timeout_ms) {
  pollfd entry{fd, POLLIN, 0};
  return ::poll(&entry, 1, timeout_ms) > 0;
}

void send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

}  // namespace

HttpServer::HttpServer(std::string body, int max_requests, int status)
    : body_(std::move(body)), max_requests_(max_requests), status_(status) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;  // ephemeral
  socklen_t length = sizeof(address);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener_, 4) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("test HTTP server: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

HttpServer::~HttpServer() {
  stop_ = true;
  thread_.join();
  ::close(listener_);
}

std::string HttpServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void HttpServer::serve() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!stop_ && served_ < max_requests_ && std::chrono::steady_clock::now() < deadline) {
    if (!readable(listener_, 50)) continue;
    int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) continue;
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos && readable(client, 5000)) {
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    const std::string reason = status_ == 200 ? "OK" : "Error";
    // Counted before the answer: the client may check the count as soon as it has the body.
    ++served_;
    send_all(client, "HTTP/1.0 " + std::to_string(status_) + " " + reason +
                         "\r\nContent-Type: application/octet-stream\r\nContent-Length: " +
                         std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n" + body_);
    ::shutdown(client, SHUT_WR);
    ::close(client);
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  }
}

}  // namespace runner::testing
