// Where the time of a Claude count goes on unseen text, stage by stage: the marked stream
// (normalization and the stream's rules), then the segments' tiling through a segment cache made
// empty at the start of each pass (what bench/claude.ts calls "unseen text"), and how many segments
// the cache answers. Stages are timed by difference, each pass doing one more of the real work than
// the one before. Times are the thread's CPU time (a loaded machine's waiting does not count), the
// median of 7 passes, over each file's first megabyte (or the one given) in 64 KiB chunks.
//
//   cmake -S . -B build-bench -DCTXWIN_BUILD_BENCH=ON && cmake --build build-bench --target claude_breakdown
//   build-bench/claude_breakdown v3 data/claude /tmp/words.txt /tmp/prose.txt ...
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"
#include "tokenizer/claude/marked_stream.hpp"
#include "tokenizer/claude/vocabulary.hpp"

namespace {

using namespace ctxwin;

constexpr std::size_t kBytesPerFile = 1'000'000;
constexpr std::size_t kChunk = 64 * 1024;
constexpr int kPasses = 7;

double thread_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double median_seconds(const std::function<std::size_t()>& pass, std::size_t& sink) {
  std::vector<double> times;
  for (int i = 0; i < kPasses; ++i) {
    const double start = thread_seconds();
    sink += pass();
    times.push_back(thread_seconds() - start);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<std::string> chunks_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string text = contents.str();
  std::size_t end = std::min(text.size(), kBytesPerFile);
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  text.resize(end);
  if (!is_valid_utf8(text)) text = repair_utf8(text);
  std::vector<std::string> chunks;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t stop = std::min(text.size(), at + kChunk);
    while (stop < text.size() && (static_cast<unsigned char>(text[stop]) & 0xC0) == 0x80) ++stop;
    chunks.push_back(text.substr(at, stop - at));
    at = stop;
  }
  return chunks;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <family> <vocabulary dir> <text file>...\n", argv[0]);
    return 2;
  }
  const std::string family = argv[1];
  const std::string vocab_file = std::string(argv[2]) + (family == "v3" ? "/v3.bin" : "/v4_7.bin");
  const auto& tokenizer = claude::ClaudeTokenizer::get(family, argv[2]);
  const auto vocabulary = claude::Vocabulary::load(vocab_file);
  const claude::StreamOptions options{vocabulary->fold_quotes(), vocabulary->allcaps_min(), family != "v5", family == "v5"};
  std::size_t sink = 0;

  std::printf("Claude %s: ns per byte (thread CPU time, median of %d passes), unseen text\n\n", family.c_str(), kPasses);
  std::printf("| text | MB/s (count) | stream bytes / byte | segments / KB | cache hits | marked stream | tiling | whole count |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int file = 3; file < argc; ++file) {
    const std::vector<std::string> chunks = chunks_of(argv[file]);
    std::size_t bytes = 0, stream_bytes = 0;
    for (const auto& chunk : chunks) bytes += chunk.size();
    std::vector<std::string> streams;
    for (const auto& chunk : chunks) streams.push_back(claude::build_marked_stream(chunk, options).bytes);
    for (const auto& s : streams) stream_bytes += s.size();
    // Segments and hits: one pass with a fresh cache, counting put()s as misses.
    claude::SegmentCache probe(std::size_t{16} << 20);
    std::size_t total_tokens = 0;
    for (const auto& s : streams) total_tokens += vocabulary->tile_segments(s, &probe);
    const std::size_t misses = probe.size();
    std::size_t segments = 0;
    for (const auto& s : streams)
      for (const char c : s) segments += static_cast<unsigned char>(c) == claude::kEow;

    const double t_stream = median_seconds(
        [&] {
          std::size_t n = 0;
          for (const auto& chunk : chunks) n += claude::build_marked_stream(chunk, options).bytes.size();
          return n;
        },
        sink);
    const double t_stream_tile = median_seconds(
        [&] {
          claude::SegmentCache cache(std::size_t{16} << 20);
          std::size_t n = 0;
          for (const auto& chunk : chunks) n += vocabulary->tile_segments(claude::build_marked_stream(chunk, options).bytes, &cache);
          return n;
        },
        sink);
    const double t_count = median_seconds(
        [&] {
          auto cache = tokenizer.new_cache();
          std::size_t n = 0;
          for (const auto& chunk : chunks) n += tokenizer.count(chunk, cache.get());
          return n;
        },
        sink);
    const double nb = static_cast<double>(bytes);
    std::printf("| %s | %.1f | %.2f | %.0f | %.0f%% | %.1f | %.1f | %.1f |\n", argv[file], nb / 1e6 / t_count,
                static_cast<double>(stream_bytes) / nb, static_cast<double>(segments) / (nb / 1000.0),
                segments ? 100.0 * (1.0 - static_cast<double>(misses) / static_cast<double>(segments)) : 0.0, t_stream * 1e9 / nb,
                (t_stream_tile - t_stream) * 1e9 / nb, t_count * 1e9 / nb);
    sink += total_tokens;
  }
  std::fprintf(stderr, "(sink %zu)\n", sink);
  return 0;
}
