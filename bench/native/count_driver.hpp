// What bench/native's counting drivers share (ctxwin_count.cc, quicktok_count.cc): read each file,
// cut it into the chunks bench/held-out.ts counts through Node (64 Ki UTF-16 code units, never
// inside a character), count every chunk once per pass with a counter made cold before the pass,
// and print one JSON line per file: its bytes, its token count and each pass's thread CPU time
// and wall time. The driver that includes this decides what "cold" means for its counter.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

inline double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The chunks of `text` as bench/text/chunks.ts cuts a JS string: a chunk ends after the character
// that brings it to `units` UTF-16 code units (a four-byte character counts two).
inline std::vector<std::string_view> utf16_chunks(std::string_view text, std::size_t units) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    i += length;
    count += length == 4 ? 2 : 1;
    if (count >= units || i >= text.size()) {
      out.push_back(text.substr(start, (i < text.size() ? i : text.size()) - start));
      start = i;
      count = 0;
    }
  }
  return out;
}

// Nanosecond resolution (std::to_string keeps microseconds: 3 digits of a megabyte's count).
inline std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9f", value);
  return text;
}

struct Counter {
  // Makes the counter cold (empty caches) before a pass; not timed.
  std::function<void()> cold;
  std::function<std::size_t(std::string_view)> count;
};

// Counts each of `files` `passes` times (after one warm-up pass of the first chunk) and prints a
// JSON line per file. Returns the process exit code.
inline int run(const std::vector<std::string>& files, int passes, Counter& counter) {
  constexpr std::size_t kChunkUnits = 64 * 1024;
  for (const std::string& path : files) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return 2;
    }
    std::ostringstream contents;
    contents << file.rdbuf();
    const std::string text = contents.str();
    const std::vector<std::string_view> chunks = utf16_chunks(text, kChunkUnits);
    if (!chunks.empty()) counter.count(chunks.front());  // code and tables paged in
    std::size_t tokens = 0;
    std::string cpu;
    std::string wall;
    // CTXWIN_BENCH_WARM=1: the caches kept across passes (what each library reaches on text it has
    // seen; quicktok's own benchmark measures this way), for a look beside the cold figures.
    const char* warm = std::getenv("CTXWIN_BENCH_WARM");
    const bool keep = warm != nullptr && std::string_view(warm) == "1";
    for (int pass = 0; pass < passes; ++pass) {
      if (!keep || pass == 0) counter.cold();
      const auto wall_start = std::chrono::steady_clock::now();
      const double cpu_start = thread_seconds();
      std::size_t n = 0;
      for (std::string_view chunk : chunks) n += counter.count(chunk);
      const double cpu_seconds = thread_seconds() - cpu_start;
      const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      tokens = n;
      if (pass > 0) {
        cpu += ',';
        wall += ',';
      }
      cpu += seconds(cpu_seconds);
      wall += seconds(wall_seconds);
    }
    std::printf("{\"file\":\"%s\",\"bytes\":%zu,\"tokens\":%zu,\"cpu\":[%s],\"wall\":[%s]}\n", path.c_str(), text.size(), tokens,
                cpu.c_str(), wall.c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace bench
