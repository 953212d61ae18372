// Where the time of counting unseen text with an OpenAI encoding goes, per category of text: how
// many pieces the pretokenizer makes, how many the piece cache answers, how many of the rest are
// whole tokens, how many merge and how much, and what each stage costs in nanoseconds per byte.
//
//   cmake -S . -B build-bench -DCTXWIN_BUILD_BENCH=ON && cmake --build build-bench --target bpe_breakdown
//   xz -dc ../shared/corpus/prose.txt.xz > /tmp/prose.txt   # (and code, cjk, euro)
//   build-bench/bpe_breakdown cl100k_base data/openai /tmp/prose.txt /tmp/code.txt ...
//
// Each file's first megabyte is counted in 64 KiB chunks with a piece cache made empty at the
// start of each pass, as bench/tokenizers.ts counts "unseen text". Stages are timed by difference,
// each pass doing one more of the real work than the one before (pretokenize; + the piece cache;
// + the whole-token lookups of the pieces it missed; + merging those that are not tokens; the
// whole count, which adds the pieces of more than 15 bytes), so that each figure is what the
// stage adds where it runs, overlapped with the others as it is there. The merging pass counts
// the misses 32 at a time through bpe_count_batch, as the count does: the batch overlaps their
// whole-token lookups too, so "merging" is what it adds to the lookups' pass. Times are the
// thread's CPU time (a loaded machine's waiting does not count), the median of 7 passes.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/bpe.hpp"
#include "ctxwin/tokenizer/bpe/contraction_split.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/bpe/pretokenizer.hpp"
#include "ctxwin/tokenizer/utf8.hpp"

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

// The median CPU time of kPasses calls of `pass`, whose result goes to `sink` (so that it runs).
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

std::vector<std::string> chunks_of_first_megabyte(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string text = contents.str();
  std::size_t end = std::min(text.size(), kBytesPerFile);
  while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;  // whole code points
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

// The text as JavaScript holds it, for the cost of the crossing into UTF-8.
std::u16string utf16_of(std::string_view text) {
  std::u16string out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t length = 0;
    char32_t cp = decode_utf8(text, at, length);
    at += length;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <encoding> <rank data dir> <text file>...\n", argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  const Encoding& encoding = Encoding::get(name, argv[2]);
  const RankTable& ranks = encoding.ranks();
  const Pattern pattern = name == "o200k_base" ? Pattern::O200k : name == "cl100k_base" ? Pattern::Cl100k : Pattern::R50k;
  std::size_t sink = 0;
  // o200k_base's pieces that end with a contraction are counted in two, as Encoding::count_utf8
  // does (contraction_split.hpp): the word goes on through the stages, the contraction is counted.
  std::optional<ContractionSplit> contractions;
  if (pattern == Pattern::O200k) contractions.emplace(ranks);
  const auto cut_contraction = [&](const Pretokenizer& pretokenizer, std::string_view& piece) -> std::size_t {
    if (pretokenizer.contraction_length() == 0 || !contractions) return 0;
    const ContractionSplit::Cut cut = contractions->find(piece);
    piece.remove_suffix(cut.length);
    return cut.count;
  };

  std::printf("%s: counts per MB; ns per byte (CPU time, median of %d passes)\n\n", name.c_str(), kPasses);
  std::printf(
      "| text | MB/s | pieces | one byte | 2-15 bytes | cache hits | whole tokens of the misses | merged pieces | merges | "
      "long pieces (parts) | UTF-16 to 8 | pretokenize | piece cache | whole-token lookups | merging | long pieces | total |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int file = 3; file < argc; ++file) {
    const std::vector<std::string> chunks = chunks_of_first_megabyte(argv[file]);
    std::size_t bytes = 0;
    for (const auto& chunk : chunks) bytes += chunk.size();
    const double megabytes = static_cast<double>(bytes) / 1e6;

    // Counters, from one pass made the way Encoding::count_utf8 makes it.
    std::size_t pieces = 0, one_byte = 0, short_pieces = 0, hits = 0, misses = 0, whole = 0, merged = 0, merges = 0, long_pieces = 0,
                long_parts = 0;
    {
      PieceCache cache;
      for (const auto& chunk : chunks) {
        Pretokenizer pretokenizer(pattern, chunk);
        for (std::string_view piece; pretokenizer.next(piece);) {
          cut_contraction(pretokenizer, piece);
          ++pieces;
          one_byte += piece.size() == 1;
          if (piece.size() > PieceCache::kShortPiece) {
            if (cache.find(piece) != PieceCache::kMissing) {
              ++hits;
              continue;
            }
            ++long_pieces;
            for_each_independent_part(piece, ranks, [&](std::string_view) { ++long_parts; });
            cache.insert(piece, 1);
            continue;
          }
          short_pieces += piece.size() > 1;
          if (cache.find_short(piece) != PieceCache::kMissing) {
            ++hits;
            continue;
          }
          ++misses;
          std::size_t n = 1;
          if (piece.size() == 1 || ranks.rank_of(piece) != RankTable::kNoRank) {
            ++whole;
          } else {
            n = bpe_merge_count(piece, ranks);
            ++merged;
            merges += piece.size() - n;
          }
          cache.insert_short(piece, static_cast<std::uint32_t>(n));
        }
      }
    }

    // The stages, each pass one more of them.
    const double pretokenize = median_seconds(
        [&] {
          std::size_t n = 0;
          for (const auto& chunk : chunks) {
            Pretokenizer pretokenizer(pattern, chunk);
            for (std::string_view piece; pretokenizer.next(piece);) n += piece.size();
          }
          return n;
        },
        sink);
    // The short pieces through the piece cache; what it misses counted as 2 (kCacheOnly), or looked
    // up as whole tokens (kWholeTokens), or counted (kMerge). Long pieces count 1 here.
    // kMerge counts the misses as Encoding::count_utf8 does, 32 at a time through bpe_count_batch
    // (whole-token lookups included, overlapped there).
    enum Level { kCacheOnly, kWholeTokens, kMerge };
    const auto with_cache = [&](Level level) {
      return [&, level] {
        PieceCache cache;
        std::size_t n = 0;
        std::vector<std::string_view> waiting;
        std::vector<std::uint32_t> counts(32);
        const auto count_waiting = [&] {
          bpe_count_batch(waiting, ranks, counts.data());
          for (std::size_t i = 0; i < waiting.size(); ++i) {
            cache.insert_short(waiting[i], counts[i]);
            n += counts[i];
          }
          waiting.clear();
        };
        for (const auto& chunk : chunks) {
          Pretokenizer pretokenizer(pattern, chunk);
          for (std::string_view piece; pretokenizer.next(piece);) {
            n += cut_contraction(pretokenizer, piece);
            if (piece.size() > PieceCache::kShortPiece) {
              ++n;
              continue;
            }
            std::uint32_t count = cache.find_short(piece);
            if (count == PieceCache::kMissing) {
              if (level == kMerge && piece.size() > 1) {
                waiting.push_back(piece);
                if (waiting.size() == counts.size()) count_waiting();
                continue;
              }
              if (level == kCacheOnly)
                count = 2;
              else if (piece.size() == 1 || ranks.rank_of(piece) != RankTable::kNoRank)
                count = 1;
              else
                count = 2;
              cache.insert_short(piece, count);
            }
            n += count;
          }
        }
        count_waiting();
        return n;
      };
    };
    const double cache_pass = median_seconds(with_cache(kCacheOnly), sink);
    const double lookup_pass = median_seconds(with_cache(kWholeTokens), sink);
    const double merge_pass = median_seconds(with_cache(kMerge), sink);
    const double total = median_seconds(
        [&] {
          const auto cache = encoding.new_cache();
          std::size_t n = 0;
          for (const auto& chunk : chunks) n += encoding.count_valid(chunk, cache.get());
          return n;
        },
        sink);
    std::vector<std::u16string> utf16;
    for (const auto& chunk : chunks) utf16.push_back(utf16_of(chunk));
    const double crossing = median_seconds(
        [&] {
          std::string out;
          std::size_t n = 0;
          for (const auto& chunk : utf16) {
            out.clear();
            append_utf16_as_utf8(chunk, out);
            n += out.size();
          }
          return n;
        },
        sink);

    const auto per_mb = [&](std::size_t n) { return static_cast<double>(n) / megabytes; };
    const auto share = [](std::size_t part, std::size_t whole_count) {
      return 100.0 * static_cast<double>(part) / static_cast<double>(std::max<std::size_t>(whole_count, 1));
    };
    const auto ns = [&](double seconds) { return seconds * 1e9 / static_cast<double>(bytes); };
    std::string label = argv[file];
    label = label.substr(label.find_last_of('/') + 1);
    std::printf(
        "| %s | %.1f | %.0f | %.0f%% | %.0f%% | %.1f%% | %.0f%% | %.0f | %.0f | %.0f (%.0f) | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | "
        "%.2f |\n",
        label.c_str(), megabytes / total, per_mb(pieces), share(one_byte, pieces), share(short_pieces, pieces), share(hits, pieces),
        share(whole, misses), per_mb(merged), per_mb(merges), per_mb(long_pieces), per_mb(long_parts), ns(crossing), ns(pretokenize),
        ns(cache_pass - pretokenize), ns(lookup_pass - cache_pass), ns(merge_pass - lookup_pass), ns(total - merge_pass), ns(total));
  }
  return sink == 42 ? 1 : 0;  // uses the results, so that no pass is optimized away
}
