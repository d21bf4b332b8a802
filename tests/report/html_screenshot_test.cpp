// Renders the filled sample report in headless Chromium, when the machine has it, to catch a
// page that a browser cannot lay out (an empty or blank screenshot). The page and its PNG stay in
// report-screenshot/ under the test's working folder for a person to look at.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "engine/report/html_writer.h"
#include "tests/report/sample_report.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

namespace fs = std::filesystem;

constexpr char kChromium[] = "/usr/bin/chromium";

// PNG signature, then the IHDR chunk: width and height as big-endian 32-bit integers.
struct PngSize {
  unsigned width = 0;
  unsigned height = 0;
};

bool ReadPngSize(const fs::path& png, PngSize& size) {
  std::ifstream in(png, std::ios::binary);
  unsigned char header[24] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header)) return false;
  static constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!std::equal(kSignature, kSignature + 8, header)) return false;
  const auto be32 = [&](int at) {
    return (unsigned{header[at]} << 24) | (unsigned{header[at + 1]} << 16) |
           (unsigned{header[at + 2]} << 8) | unsigned{header[at + 3]};
  };
  size = {be32(16), be32(20)};
  return true;
}

TEST(HtmlScreenshot, ChromiumRendersTheSampleReport) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << kChromium << " is not installed";

  const fs::path out_dir = fs::absolute("report-screenshot");
  fs::create_directories(out_dir);
  const fs::path html = out_dir / "report.html";
  const fs::path png = out_dir / "report.png";
  fs::remove(png);
  std::ofstream(html) << ReportToHtml(testing::FilledReport());

  // A fresh profile, no network and no background services: the page must render offline.
  testing::ScratchDir profile;
  const std::string command = std::string("timeout 90 ") + kChromium +
                              " --headless --no-sandbox --disable-gpu --disable-quic"
                              " --no-first-run --disable-background-networking"
                              " --disable-component-update --disable-sync"
                              " --user-data-dir='" +
                              profile.path() + "'" + " --screenshot='" + png.string() + "'" +
                              " --window-size=1200,2000 'file://" + html.string() + "'" + " > '" +
                              (out_dir / "chromium.log").string() + "' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command << "\nsee " << (out_dir / "chromium.log");

  ASSERT_TRUE(fs::exists(png)) << "no screenshot at " << png;
  PngSize size;
  ASSERT_TRUE(ReadPngSize(png, size)) << png << " is not a PNG";
  EXPECT_EQ(size.width, 1200u);
  EXPECT_EQ(size.height, 2000u);
  // A blank white 1200x2000 page compresses to a few kilobytes; text and charts do not.
  EXPECT_GT(fs::file_size(png), 40000u);
}

}  // namespace
}  // namespace advisor
