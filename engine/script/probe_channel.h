// advisor's end of the private channel to the probe in the script's process: a socket pair made
// before the script starts, one JSON object per line each way. What arrives is untrusted: lines
// are bounded (kMaxMessageBytes) and must be JSON objects, or ProbeMessageError says so.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace advisor {

// A profiled window of a large model with CUPTI records is tens of MB; a quarter GiB bounds what a
// broken probe can make advisor hold.
inline constexpr std::size_t kMaxMessageBytes = std::size_t{256} << 20;

class ProbeChannel {
 public:
  // Makes the socket pair; both ends are close-on-exec.
  ProbeChannel();
  ~ProbeChannel();
  ProbeChannel(const ProbeChannel&) = delete;
  ProbeChannel& operator=(const ProbeChannel&) = delete;

  // The end the script inherits; close it here once the script has started.
  int probe_end() const { return probe_end_; }
  void CloseProbeEnd();

  // Throws std::runtime_error when the probe is gone.
  void Send(const nlohmann::json& command);

  enum class Wait { kMessage, kClosed, kTimedOut, kStopped };
  // Waits up to `timeout` for the next message. Every slice of waiting, `keep_waiting` is asked
  // whether to go on (false: the script has exited, say). Throws ProbeMessageError for a line that
  // is too long or not a JSON object.
  Wait Receive(std::chrono::milliseconds timeout, const std::function<bool()>& keep_waiting,
               nlohmann::json& message);

 private:
  bool TakeLine(nlohmann::json& message);

  int own_end_ = -1;
  int probe_end_ = -1;
  std::string pending_;
  std::size_t scanned_ = 0;  // bytes of pending_ known to hold no newline
};

}  // namespace advisor
