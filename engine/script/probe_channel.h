// advisor's end of the private channel to the probe in the script's process: a Unix socket in a
// folder of advisor's own (mode 0700), which the probe connects to by path, so that it reaches the
// process that trains even when a launcher (torchrun) starts it with other file descriptors
// closed; under a launcher each rank connects on its own. One JSON object per line each way. What
// arrives is untrusted: lines are bounded (kMaxMessageBytes) and must be JSON objects, or
// ProbeMessageError says so.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/util/scratch_paths.h"

namespace advisor {

// A profiled window of a large model with CUPTI records is tens of MB; a quarter GiB bounds what a
// broken probe can make advisor hold.
inline constexpr std::size_t kMaxMessageBytes = std::size_t{256} << 20;

// One probe's connection: the training process's, or one rank's under a launcher.
class ProbeChannel {
 public:
  explicit ProbeChannel(int connection) : connection_(connection) {}
  ~ProbeChannel();  // closes the connection
  ProbeChannel(const ProbeChannel&) = delete;
  ProbeChannel& operator=(const ProbeChannel&) = delete;

  enum class Wait { kMessage, kClosed, kTimedOut, kStopped };

  // Throws std::runtime_error when the probe is gone.
  void Send(const nlohmann::json& command);

  // Waits up to `timeout` for the next message. Every slice of waiting, `keep_waiting` is asked
  // whether to go on (false: the script has exited, say). Throws ProbeMessageError for a line that
  // is too long or not a JSON object.
  Wait Receive(std::chrono::milliseconds timeout, const std::function<bool()>& keep_waiting,
               nlohmann::json& message);

  // Whether the probe has closed its end (its process has ended), without reading: what it sent
  // before is still there for Receive.
  bool PeerClosed() const;

 private:
  bool TakeLine(nlohmann::json& message);

  int connection_ = -1;
  std::string pending_;
  std::size_t scanned_ = 0;  // bytes of pending_ known to hold no newline
};

// The folder and the listening socket that the probes connect to.
class ProbeListener {
 public:
  // Makes the folder and the listening socket in it. Throws std::runtime_error (one line).
  ProbeListener();
  // Closes the socket and removes it and its folder.
  ~ProbeListener();
  ProbeListener(const ProbeListener&) = delete;
  ProbeListener& operator=(const ProbeListener&) = delete;

  // The socket's path, which the probe is given as ADVISOR_PROBE_SOCKET.
  const std::string& address() const { return address_; }

  // Waits up to `timeout` for the next probe to connect and sets `channel` to its connection;
  // kStopped when `keep_waiting` says to stop (asked every slice of waiting).
  ProbeChannel::Wait Accept(std::chrono::milliseconds timeout,
                            const std::function<bool()>& keep_waiting,
                            std::unique_ptr<ProbeChannel>& channel);
  // Every probe expected has connected: whoever else connects later finds nobody listening.
  void Close();

 private:
  // Registered scratch: an interrupt, which cannot unwind the stack, removes it too. Under
  // $TMPDIR, or under /tmp where $TMPDIR is too deep for a socket's path (108 bytes).
  std::optional<PrivateTempDir> folder_;
  std::string address_;
  int listening_ = -1;
};

}  // namespace advisor
