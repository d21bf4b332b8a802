#include "engine/rules/lua_sandbox.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "engine/rules/sandbox_libraries.h"

namespace advisor {
namespace {

// The count hook fires every kHookInterval instructions: rare enough to cost little, frequent
// enough that an exhausted budget stops a rule at once and that the line it records for errors
// without a position (memory) is where the rule was.
constexpr int kHookInterval = 100;
constexpr std::size_t kMaxErrorBytes = 300;

// Lua error messages become one line of a report: no control characters, bounded length.
std::string OneLine(const char* text, std::size_t length) {
  std::string line(text, std::min(length, kMaxErrorBytes));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  if (length > kMaxErrorBytes) line += "...";
  return line;
}

// Reads the error object without running Lua code (no __tostring) and without allocating.
std::string ErrorText(lua_State* L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TSTRING: {
      std::size_t length = 0;
      const char* text = lua_tolstring(L, index, &length);
      return OneLine(text, length);
    }
    case LUA_TNUMBER:
      return "error " + std::to_string(lua_tonumberx(L, index, nullptr));
    default:
      return std::string("error object is a ") + luaL_typename(L, index) + " value";
  }
}

std::string Bytes(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}


}  // namespace

LuaSandbox::LuaSandbox(const SandboxLimits& limits)
    : limits_(limits), byte_limit_(std::numeric_limits<std::size_t>::max()) {
  state_ = lua_newstate(&LuaSandbox::Allocate, this);
  if (state_ == nullptr) throw std::runtime_error("cannot create a Lua state");
  if (auto error = Call(&OpenSandboxLibraries, nullptr, 0)) {
    lua_close(state_);
    throw std::runtime_error("cannot set up the Lua sandbox: " + *error);
  }
}

LuaSandbox::~LuaSandbox() {
  // Nothing of the rule's runs here: rules cannot register __gc finalizers (see
  // sandbox_libraries.cpp), and to-be-closed variables were closed as their calls ended.
  lua_close(state_);
}

std::optional<std::string> LuaSandbox::Call(lua_CFunction body, void* context, int results) {
  lua_pushcfunction(state_, body);
  lua_pushlightuserdata(state_, context);
  return CallFunction(1, results);
}

std::optional<std::string> LuaSandbox::CallFunction(int arguments, int results) {
  const int status = lua_pcall(state_, arguments, results, 0);
  if (status == LUA_OK) return std::nullopt;
  std::string message = status == LUA_ERRMEM
                            ? "memory limit of " + Bytes(limits_.memory_bytes) + " exceeded"
                            : ErrorText(state_, -1);
  lua_pop(state_, 1);
  return message;
}

void LuaSandbox::ArmLimits() {
  armed_ = true;
  byte_limit_ = used_bytes_ + limits_.memory_bytes;
  deadline_ = std::chrono::steady_clock::now() + limits_.time;
  InstallHook();
}

void LuaSandbox::WatchChunkReturns(bool on) {
  watch_returns_ = on;
  InstallHook();
}

void LuaSandbox::InstallHook() {
  if (stopped_ != nullptr) return;  // keeps the every-instruction hook that fails at once
  // Calls are watched as well as instructions: a C function such as table.sort is one
  // instruction, and a loop of them would otherwise run many calls between two count events.
  const int mask =
      (armed_ ? LUA_MASKCOUNT | LUA_MASKCALL : 0) | (watch_returns_ ? LUA_MASKRET : 0);
  lua_sethook(state_, mask ? &LuaSandbox::Hook : nullptr, mask, kHookInterval);
}

void* LuaSandbox::Allocate(void* self_pointer, void* block, std::size_t old_size,
                           std::size_t new_size) {
  auto* self = static_cast<LuaSandbox*>(self_pointer);
  if (block == nullptr) old_size = 0;  // Lua passes the kind of object here instead of a size
  if (new_size == 0) {
    std::free(block);
    self->used_bytes_ -= old_size;
    return nullptr;
  }
  // Returning null makes Lua raise a memory error in the rule, which Call() reports.
  if (new_size > old_size && new_size - old_size > self->byte_limit_ - self->used_bytes_) {
    return nullptr;
  }
  void* resized = std::realloc(block, new_size);
  if (resized != nullptr) self->used_bytes_ = self->used_bytes_ - old_size + new_size;
  return resized;
}

void LuaSandbox::Hook(lua_State* L, lua_Debug* event) {
  void* self_pointer = nullptr;
  lua_getallocf(L, &self_pointer);
  auto* self = static_cast<LuaSandbox*>(self_pointer);

  if (event->event == LUA_HOOKRET) {
    if (lua_getinfo(L, "Sl", event) && std::strcmp(event->what, "main") == 0) {
      self->chunk_return_line_ = event->currentline;
    }
    return;
  }
  if (self->stopped_ != nullptr) {
    // The rule may catch the first error with pcall; every later instruction and call fails
    // again, so control cannot stay inside the rule.
    lua_pushstring(L, self->stopped_);
    lua_error(L);
  }
  if (std::chrono::steady_clock::now() > self->deadline_) {
    lua_pushfstring(L, "time limit of %I ms exceeded (a loop of costly calls?)",
                    static_cast<lua_Integer>(self->limits_.time.count()));
    self->Stop(L, event, "time limit exceeded");
  }
  if (event->event != LUA_HOOKCOUNT) return;  // a call: only the clock is watched there
  if (!self->tracked_chunk_.empty() && lua_getinfo(L, "Sl", event) &&
      self->tracked_chunk_ == event->source) {
    self->last_tracked_line_ = event->currentline;
  }
  self->executed_ += kHookInterval;
  if (self->executed_ <= self->limits_.instructions) return;
  lua_pushfstring(L, "instruction budget of %I exhausted (an endless loop?)",
                  static_cast<lua_Integer>(self->limits_.instructions));
  self->Stop(L, event, "instruction budget exhausted");
}

void LuaSandbox::Stop(lua_State* L, lua_Debug* event, const char* why) {
  stopped_ = why;
  lua_sethook(L, &LuaSandbox::Hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
  // A count event stops the running function; a call event has entered the callee, so the line
  // to name is its caller's.
  luaL_where(L, event->event == LUA_HOOKCOUNT ? 0 : 1);
  lua_insert(L, -2);  // "file:line: " before the message the caller pushed
  lua_concat(L, 2);
  lua_error(L);
}

}  // namespace advisor
