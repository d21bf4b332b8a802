#include "engine/util/cpu_pressure.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace advisor {

std::optional<double> CpuStallSeconds(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (kind != "some") continue;
    for (std::string field; fields >> field;) {
      if (field.rfind("total=", 0) != 0) continue;
      try {
        std::size_t used = 0;
        const unsigned long long micros = std::stoull(field.substr(6), &used);
        if (used != field.size() - 6) return std::nullopt;
        return micros * 1e-6;
      } catch (const std::exception&) {  // not a number, or beyond 64 bits
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

namespace {

// The machine's busy jiffies: every "cpu" column but idle and iowait.
std::optional<double> BusyJiffies(const std::string& proc) {
  std::ifstream in(proc + "/stat");
  std::string label;
  if (!(in >> label) || label != "cpu") return std::nullopt;
  double busy = 0;
  for (int column = 0; column < 8; ++column) {
    double value = 0;
    if (!(in >> value)) return std::nullopt;
    if (column != 3 && column != 4) busy += value;  // idle, iowait
  }
  return busy;
}

struct ProcessTimes {
  int parent = 0;
  double jiffies = 0;  // utime + stime + cutime + cstime
};

// /proc/PID/stat's parent and times; the command name may hold spaces and parentheses, so the
// fields are read after its last ')'.
std::optional<ProcessTimes> TimesOf(const std::filesystem::path& stat) {
  std::ifstream in(stat);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(name_end + 1));
  std::vector<std::string> values;  // from field 3 (state) on
  for (std::string value; values.size() < 15 && fields >> value;) values.push_back(value);
  if (values.size() < 15) return std::nullopt;
  try {
    ProcessTimes times;
    times.parent = std::stoi(values[1]);                                  // field 4
    for (int field = 14; field <= 17; ++field) times.jiffies += std::stod(values[field - 3]);
    return times;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<double> OthersCpuSeconds(const std::string& proc, int self) {
  const long ticks = sysconf(_SC_CLK_TCK);
  const std::optional<double> busy = BusyJiffies(proc);
  if (!busy || ticks <= 0) return std::nullopt;
  if (self == 0) self = static_cast<int>(getpid());
  std::map<int, ProcessTimes> processes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    // A process may end between the listing and the read: it is simply not counted.
    if (const std::optional<ProcessTimes> times = TimesOf(entry.path() / "stat")) {
      processes[std::stoi(name)] = *times;
    }
  }
  if (error || !processes.count(self)) return std::nullopt;
  double own = 0;
  for (const auto& [pid, times] : processes) {
    int ancestor = pid;
    for (std::size_t hops = 0; ancestor > 0 && ancestor != self && hops < processes.size();
         ++hops) {
      const auto parent = processes.find(ancestor);
      ancestor = parent == processes.end() ? 0 : parent->second.parent;
    }
    if (ancestor == self) own += times.jiffies;
  }
  return (*busy - own) / static_cast<double>(ticks);
}

}  // namespace advisor
