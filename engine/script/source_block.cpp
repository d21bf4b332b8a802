#include "engine/script/source_block.h"

#include <sstream>

#include "engine/util/input_file.h"

namespace advisor {
namespace {

constexpr std::uint64_t kMaxSourceBytes = 4 << 20;

std::size_t Indent(const std::string& line) { return line.find_first_not_of(" \t"); }

// Blank lines and comments say nothing of where a block ends: a comment may sit at any indent.
bool Blank(const std::string& line) {
  const std::size_t at = Indent(line);
  return at == std::string::npos || line[at] == '#';
}

bool Def(const std::string& line) {
  const std::string text = line.substr(Indent(line));
  return text.rfind("def ", 0) == 0 || text.rfind("async def ", 0) == 0;
}

}  // namespace

std::optional<SourceBlock> EnclosingFunction(const std::string& file, int line) {
  std::string text;
  try {
    text = ReadInputFile(file, kMaxSourceBytes);
  } catch (const InputFileError&) {
    return std::nullopt;  // a file gone, or not one to read: the change keeps to the one line
  }
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string each; std::getline(in, each);) lines.push_back(each);
  if (line < 1 || line > static_cast<int>(lines.size()) || Blank(lines[line - 1])) {
    return std::nullopt;
  }
  const std::size_t index = static_cast<std::size_t>(line - 1);
  // The nearest `def` above, indented less: the lines between are its body's.
  std::size_t def = index;
  do {
    if (def == 0) return std::nullopt;
    --def;
  } while (Blank(lines[def]) || !Def(lines[def]) || Indent(lines[def]) >= Indent(lines[index]));
  std::size_t last = index;
  for (std::size_t next = index + 1; next < lines.size(); ++next) {
    if (Blank(lines[next])) continue;
    if (Indent(lines[next]) <= Indent(lines[def])) break;
    last = next;
  }
  SourceBlock block;
  block.first_line = static_cast<int>(def) + 1;
  block.lines.assign(lines.begin() + static_cast<std::ptrdiff_t>(def),
                     lines.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  return block;
}

}  // namespace advisor
