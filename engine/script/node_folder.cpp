#include "engine/script/node_folder.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"

namespace advisor {
namespace {

constexpr char kReleaseName[] = "released.json";
constexpr std::size_t kMaxReleaseBytes = 4096;

std::string SummaryName(int node) { return "node-" + std::to_string(node) + ".json"; }

// OUT, made where missing: the path the user gave, links on the way included.
FolderHandle OpenOut(const std::string& out_dir) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) throw std::runtime_error("cannot create folder " + out_dir + ": " + error.message());
  return FolderHandle::Open(out_dir);
}

}  // namespace

NodeFolder::NodeFolder(const std::string& out_dir)
    : folder_(
          OpenOut(std::filesystem::path(out_dir).lexically_normal().string()).Subfolder("nodes")) {}

std::string NodeFolder::FileOf(int node) const { return folder_.PathOf(SummaryName(node)); }

void NodeFolder::Prepare(int node) const {
  folder_.Remove(SummaryName(node));
  if (node == 0) folder_.Remove(kReleaseName);
}

void NodeFolder::WriteWhole(const std::string& name, const std::string& text) const {
  const std::string temporary = "." + name + ".tmp." + std::to_string(::getpid());
  folder_.Remove(temporary);
  if (const int error = folder_.WriteNewFile(temporary, text); error != 0) {
    throw std::runtime_error("cannot write " + folder_.PathOf(temporary) + ": " +
                             std::strerror(error));
  }
  if (const int error = folder_.Rename(temporary, folder_, name); error != 0) {
    folder_.Remove(temporary);
    throw std::runtime_error("cannot write " + folder_.PathOf(name) + ": " + std::strerror(error));
  }
}

void NodeFolder::Write(int node, const std::string& text) const {
  WriteWhole(SummaryName(node), text);
}

bool NodeFolder::Has(int node) const { return folder_.Entry(SummaryName(node)).has_value(); }

std::vector<int> NodeFolder::Missing(int nodes) const {
  std::vector<int> missing;
  for (int node = 0; node < nodes; ++node) {
    if (!Has(node)) missing.push_back(node);
  }
  return missing;
}

NodeSummary NodeFolder::Read(int node) const {
  const std::string name = FileOf(node);
  const std::optional<std::string> text = ReadBounded(SummaryName(node), kMaxNodeFileBytes);
  if (!text) throw NodeFileError(name + ": missing");
  return ReadNodeSummary(*text, name);
}

void NodeFolder::Release(int end_steps) const {
  WriteWhole(kReleaseName, nlohmann::json({{"end_steps", end_steps}}).dump() + "\n");
}

std::optional<int> NodeFolder::Released() const {
  const std::string name = folder_.PathOf(kReleaseName);
  const std::optional<std::string> text = ReadBounded(kReleaseName, kMaxReleaseBytes);
  if (!text) return std::nullopt;
  return RethrowAs<NodeFileError>([&] {
    const nlohmann::json release = ParseJsonDocument(*text, name);
    const JsonField root(release, name);
    return static_cast<int>(root.Required("end_steps").Integer(0, 1 << 30));
  });
}

std::optional<std::string> NodeFolder::ReadBounded(const std::string& name,
                                                   std::size_t limit) const {
  try {
    return folder_.ReadFile(name, limit);
  } catch (const std::runtime_error& error) {
    throw NodeFileError(error.what());
  }
}

}  // namespace advisor
