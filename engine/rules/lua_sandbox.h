// One Lua 5.4 state for one untrusted rule run: only the safe standard libraries (see
// sandbox_libraries.h), an instruction budget and a wall-clock limit enforced by a hook, and a
// memory cap enforced by the state's allocator.
//
// Error discipline: Lua reports errors with longjmp, which skips C++ destructors. Everything that
// can raise a Lua error therefore runs inside Call(), whose bodies touch only the Lua C API and
// plain pointers; code outside Call() uses only API functions that neither allocate nor run Lua
// code (lua_next, lua_rawgeti, lua_rawlen, lua_type, lua_to*), so it never raises.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include <lua.hpp>

namespace advisor {

struct SandboxLimits {
  // VM instructions per rule run (loading the file and calling check together). Built-in rules
  // use well under a million; an endless loop reaches 50 million in a fraction of a second.
  long long instructions = 50'000'000;
  // Bytes a rule run may allocate on top of what the engine put in the state (facts, helpers).
  // It also bounds the cost of one call: no string or table a rule can build is larger, and the
  // library functions that work in C on one (compare, concatenate, search, sort) take time about
  // proportional to its size, at most some tens of milliseconds.
  std::size_t memory_bytes = std::size_t{64} << 20;
  // Wall-clock time per rule run. The instruction budget alone does not bound time: one
  // instruction can do much work in C (comparing two equal 15 MB strings takes over a millisecond,
  // so 50 million of them would take hours). Built-in rules take a few milliseconds.
  std::chrono::milliseconds time{1000};
};

class LuaSandbox {
 public:
  // Throws std::runtime_error when the state or its libraries cannot be created.
  explicit LuaSandbox(const SandboxLimits& limits);
  ~LuaSandbox();
  LuaSandbox(const LuaSandbox&) = delete;
  LuaSandbox& operator=(const LuaSandbox&) = delete;

  lua_State* state() const { return state_; }

  // Runs body(L) under lua_pcall with `context` as its only argument (light userdata). On success
  // leaves `results` values on the stack and returns nullopt; on failure returns the error as one
  // line of text (control characters replaced, length capped).
  std::optional<std::string> Call(lua_CFunction body, void* context, int results);

  // Calls the function that sits below its `arguments` on top of the stack, like Call.
  std::optional<std::string> CallFunction(int arguments, int results);

  // From now on, count instructions, watch the clock and cap allocations at what the state holds
  // now plus the limit. Until then the engine fills the state (libraries, facts) without limits.
  void ArmLimits();

  // Tracks, from now on, where a chunk of this name (as given to lua_load, e.g. "@gather.lua")
  // executes, so errors that carry no position (memory) can name the line. 0 until it runs.
  void TrackChunk(const std::string& chunk_name) {
    tracked_chunk_ = chunk_name;
    last_tracked_line_ = 0;
  }
  int last_tracked_line() const { return last_tracked_line_; }

  // While on, records the line where the return statement that ends a main chunk ends.
  void WatchChunkReturns(bool on);
  int chunk_return_line() const { return chunk_return_line_; }

 private:
  static void* Allocate(void* self, void* block, std::size_t old_size, std::size_t new_size);
  static void Hook(lua_State* L, lua_Debug* event);
  void InstallHook();
  // Raises the error that ends the rule, and makes every later instruction and call raise one too.
  // Never returns (lua_error jumps out), though Lua does not declare it so.
  void Stop(lua_State* L, lua_Debug* event, const char* why);

  SandboxLimits limits_;
  lua_State* state_ = nullptr;
  std::size_t used_bytes_ = 0;
  std::size_t byte_limit_;  // used_bytes_ never exceeds it
  bool armed_ = false;
  long long executed_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  const char* stopped_ = nullptr;  // why the rule was stopped: it may not run on
  bool watch_returns_ = false;
  std::string tracked_chunk_;
  int last_tracked_line_ = 0;
  int chunk_return_line_ = 0;
};

}  // namespace advisor
