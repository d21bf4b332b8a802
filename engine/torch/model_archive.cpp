#include "engine/torch/model_archive.h"

#include <caffe2/serialize/inline_container.h>

#include <fstream>

#include "engine/archive/entry_limits.h"
#include "engine/archive/zip_directory.h"
#include "engine/torch/seeded_method.h"
#include "engine/util/file_kind.h"

namespace advisor {
namespace {

// LibTorch's messages run over many lines with C++ frames; the first line says what happened.
std::string FirstLine(const std::string& text) {
  const std::size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

void CheckReadableFile(const std::string& path) {
  // Opening a named pipe would block forever; a symbolic link loop must not read "no such file".
  const std::string not_a_file = WhyNotARegularFile(path);
  if (!not_a_file.empty()) throw ModelError(path + ": " + not_a_file);
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw ModelError(path + ": cannot be read");
  // TorchScript archives are zip files; say so plainly rather than quote the zip reader.
  char magic[2] = {0, 0};
  probe.read(magic, 2);
  if (probe.gcount() < 2 || magic[0] != 'P' || magic[1] != 'K') {
    throw ModelError(path + ": not a TorchScript archive (no zip header); save the model with "
                            "torch.jit.save (scripts/advisor_export.py)");
  }
}

// What each entry would expand to, from the zip directory, before LibTorch inflates any.
void CheckArchiveEntries(const std::string& path) {
  std::vector<ZipEntry> entries;
  try {
    entries = ReadZipDirectoryOfFile(path);
  } catch (const ZipError& error) {
    throw ModelError(path + ": not a loadable TorchScript archive: " + error.what());
  }
  const std::string too_large = WhyEntriesTooLarge(entries, kWorkloadEntry);
  if (!too_large.empty()) throw ModelError(path + ": " + too_large);
}

torch::jit::Module Load(const std::string& path, torch::jit::ExtraFilesMap& extra_files) {
  CheckReadableFile(path);
  CheckArchiveEntries(path);
  try {
    return torch::jit::load(path, torch::kCPU, extra_files);
  } catch (const std::exception& error) {
    throw ModelError(path + ": not a loadable TorchScript archive: " + FirstLine(error.what()));
  }
}

}  // namespace

WorkloadSpec ReadWorkload(const std::string& model_path) {
  torch::jit::ExtraFilesMap extra_files{{kWorkloadEntry, ""}};
  Load(model_path, extra_files);
  const std::string& text = extra_files[kWorkloadEntry];
  if (text.empty()) {
    throw ModelError(model_path + ": has no " + kWorkloadEntry +
                     "; export it with scripts/advisor_export.py (docs/workload.md)");
  }
  try {
    return ParseWorkload(text, model_path + ":" + kWorkloadEntry);
  } catch (const WorkloadError& error) {
    throw ModelError(error.what());
  }
}

torch::jit::Module LoadModule(const std::string& model_path) {
  torch::jit::ExtraFilesMap extra_files{{kWorkloadEntry, ""}};
  torch::jit::Module module = Load(model_path, extra_files);
  module.train();
  // The input stage's method is part of the model: check it against the archive's own workload
  // (ReadWorkload reports a workload that does not parse).
  const std::string& workload = extra_files[kWorkloadEntry];
  if (!workload.empty()) {
    try {
      const std::string problem = InputStageProblem(module, ParseWorkload(workload, model_path));
      if (!problem.empty()) throw ModelError(model_path + ": " + problem);
    } catch (const WorkloadError&) {
    }
  }
  return module;
}

void SaveModel(const torch::jit::Module& module, const std::string& model_path,
               const std::string& out_path) {
  // The workload entry alone, without loading the model again; torch keeps extra files under
  // "extra/".
  torch::jit::ExtraFilesMap extra_files;
  const std::string record = std::string("extra/") + kWorkloadEntry;
  caffe2::serialize::PyTorchStreamReader reader(model_path);
  if (reader.hasRecord(record)) {
    const auto [data, size] = reader.getRecord(record);
    extra_files[kWorkloadEntry] = std::string(static_cast<const char*>(data.get()), size);
  }
  try {
    module.save(out_path, extra_files);
  } catch (const std::exception& error) {
    throw ModelError("cannot save " + out_path + ": " + FirstLine(error.what()));
  }
}

}  // namespace advisor
