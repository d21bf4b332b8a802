#include "engine/script/probe_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/script/timeline_codec.h"

namespace advisor {
namespace {

// How often a quiet wait looks at the script.
constexpr auto kSlice = std::chrono::milliseconds(100);

}  // namespace

ProbeChannel::ProbeChannel() {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    throw std::runtime_error(std::string("cannot make the probe's channel: ") +
                             std::strerror(errno));
  }
  own_end_ = ends[0];
  probe_end_ = ends[1];
}

ProbeChannel::~ProbeChannel() {
  CloseProbeEnd();
  if (own_end_ >= 0) close(own_end_);
}

void ProbeChannel::CloseProbeEnd() {
  if (probe_end_ >= 0) close(probe_end_);
  probe_end_ = -1;
}

void ProbeChannel::Send(const nlohmann::json& command) {
  const std::string line = command.dump() + "\n";
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = send(own_end_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the script's probe is gone (its channel closed)");
    sent += static_cast<std::size_t>(n);
  }
}

bool ProbeChannel::TakeLine(nlohmann::json& message) {
  // Only what arrived since the last look can hold the newline: a window of tens of MB comes in
  // many reads.
  const std::size_t newline = pending_.find('\n', scanned_);
  if (newline == std::string::npos) {
    scanned_ = pending_.size();
    if (pending_.size() > kMaxMessageBytes) {
      throw ProbeMessageError("a message from the probe exceeds " +
                              std::to_string(kMaxMessageBytes >> 20) + " MiB");
    }
    return false;
  }
  message = nlohmann::json::parse(pending_.begin(), pending_.begin() + newline, nullptr, false);
  pending_.erase(0, newline + 1);
  scanned_ = 0;
  if (!message.is_object()) throw ProbeMessageError("a message from the probe is not a JSON object");
  return true;
}

ProbeChannel::Wait ProbeChannel::Receive(std::chrono::milliseconds timeout,
                                         const std::function<bool()>& keep_waiting,
                                         nlohmann::json& message) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[1 << 16];
  while (true) {
    if (TakeLine(message)) return Wait::kMessage;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Wait::kTimedOut;
    const auto slice = std::min<std::chrono::steady_clock::duration>(kSlice, deadline - now);
    pollfd descriptor{own_end_, POLLIN, 0};
    const int ready = poll(&descriptor, 1,
                           static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::strerror(errno));
    if (ready > 0) {
      const ssize_t n = recv(own_end_, buffer, sizeof buffer, 0);
      if (n == 0) return Wait::kClosed;
      if (n > 0) pending_.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (!keep_waiting()) return Wait::kStopped;
  }
}

}  // namespace advisor
