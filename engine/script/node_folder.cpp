#include "engine/script/node_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"
#include "engine/util/new_file.h"

namespace advisor {
namespace {

constexpr char kReleaseName[] = "released.json";
constexpr std::size_t kMaxReleaseBytes = 4096;

// The file's whole content, refused before reading when larger than `limit`. nullopt when absent.
std::optional<std::string> ReadBounded(const std::string& path, std::size_t limit) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw NodeFileError(path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) throw NodeFileError(path + ": not a regular file");
  if (static_cast<std::size_t>(info.st_size) > limit) {
    throw NodeFileError(path + ": larger than " + std::to_string(limit) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw NodeFileError(path + ": cannot be read");
  if (text.str().size() > limit) throw NodeFileError(path + ": grew while it was read");
  return text.str();
}

}  // namespace

NodeFolder::NodeFolder(const std::string& out_dir)
    : path_((std::filesystem::path(out_dir) / "nodes").lexically_normal().string()) {}

std::string NodeFolder::FileOf(int node) const {
  return path_ + "/node-" + std::to_string(node) + ".json";
}

void NodeFolder::Prepare(int node) const {
  std::error_code error;
  std::filesystem::create_directories(path_, error);
  if (error) throw std::runtime_error("cannot create folder " + path_ + ": " + error.message());
  ::unlink(FileOf(node).c_str());
  if (node == 0) ::unlink((path_ + "/" + kReleaseName).c_str());
}

void NodeFolder::WriteWhole(const std::string& name, const std::string& text) const {
  const std::string target = path_ + "/" + name;
  const std::string temporary = path_ + "/." + name + ".tmp." + std::to_string(::getpid());
  ::unlink(temporary.c_str());
  if (const int error = WriteNewFile(temporary, text); error != 0) {
    throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(error));
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw std::runtime_error("cannot write " + target + ": " + std::strerror(error));
  }
}

void NodeFolder::Write(int node, const std::string& text) const {
  WriteWhole("node-" + std::to_string(node) + ".json", text);
}

bool NodeFolder::Has(int node) const { return ::access(FileOf(node).c_str(), F_OK) == 0; }

std::vector<int> NodeFolder::Missing(int nodes) const {
  std::vector<int> missing;
  for (int node = 0; node < nodes; ++node) {
    if (!Has(node)) missing.push_back(node);
  }
  return missing;
}

NodeSummary NodeFolder::Read(int node) const {
  const std::string name = FileOf(node);
  const std::optional<std::string> text = ReadBounded(name, kMaxNodeFileBytes);
  if (!text) throw NodeFileError(name + ": missing");
  return ReadNodeSummary(*text, name);
}

void NodeFolder::Release(int end_steps) const {
  WriteWhole(kReleaseName, nlohmann::json({{"end_steps", end_steps}}).dump() + "\n");
}

std::optional<int> NodeFolder::Released() const {
  const std::string name = path_ + "/" + kReleaseName;
  const std::optional<std::string> text = ReadBounded(name, kMaxReleaseBytes);
  if (!text) return std::nullopt;
  return RethrowAs<NodeFileError>([&] {
    const nlohmann::json release = ParseJsonDocument(*text, name);
    const JsonField root(release, name);
    return static_cast<int>(root.Required("end_steps").Integer(0, 1 << 30));
  });
}

}  // namespace advisor
