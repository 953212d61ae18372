// The prepared forms' cache folder (native/src/tokenizer/hf/cache_folder.hpp): temporary files a
// killed writer left are removed once they are older than the stale age, while a live writer's
// (recently written) file, the prepared forms themselves and files of other names stay; and a load
// that writes the folder clears it on the way.
#include "tokenizer/hf/cache_folder.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"

namespace ctxwin {
namespace {

namespace fs = std::filesystem;

struct ScratchFolder {
  fs::path path;
  ScratchFolder()
      : path(fs::temp_directory_path() /
             ("ctxwin-cache-folder-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()))) {
    fs::create_directories(path);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

void write_file(const fs::path& path, std::string_view bytes, std::chrono::minutes age) {
  std::ofstream(path, std::ios::binary) << bytes;
  fs::last_write_time(path, fs::file_time_type::clock::now() - age);
}

std::set<std::string> names(const fs::path& folder) {
  std::set<std::string> out;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) out.insert(entry.path().filename().string());
  return out;
}

constexpr const char* kDead = "tokenizer-json-00000000000000aa-v3.bin.tmp-1-2-3";
constexpr const char* kLive = "tokenizer-json-00000000000000aa-v3.bin.tmp-4-5-6";
constexpr const char* kPrepared = "tokenizer-json-00000000000000bb-v3.bin";
constexpr const char* kOther = "notes.tmp-7";

TEST(CacheFolder, RemovesOnlyStaleTemporariesOfPreparedForms) {
  const ScratchFolder folder;
  write_file(folder.path / kDead, "half a prepared form", std::chrono::minutes(60));
  write_file(folder.path / kLive, "a writer is writing", std::chrono::minutes(0));
  write_file(folder.path / kPrepared, "an old prepared form", std::chrono::minutes(600));
  write_file(folder.path / kOther, "someone else's", std::chrono::minutes(600));
  EXPECT_EQ(hf::remove_stale_temporaries(folder.path), 1u);
  EXPECT_EQ(names(folder.path), (std::set<std::string>{kLive, kPrepared, kOther}));
  // A second cleaner (or the same one again) finds nothing more to do.
  EXPECT_EQ(hf::remove_stale_temporaries(folder.path), 0u);
  // Just under the stale age is a live writer's.
  write_file(folder.path / kDead, "x", hf::kStaleTemporaryAge - std::chrono::minutes(1));
  EXPECT_EQ(hf::remove_stale_temporaries(folder.path), 0u);
  EXPECT_EQ(hf::remove_stale_temporaries(folder.path, std::chrono::minutes(0)), 2u);
  EXPECT_EQ(names(folder.path), (std::set<std::string>{kPrepared, kOther}));
}

TEST(CacheFolder, AMissingFolderIsNothingToClean) {
  EXPECT_EQ(hf::remove_stale_temporaries(fs::temp_directory_path() / "ctxwin-no-such-folder-for-this-test"), 0u);
}

TEST(CacheFolder, ALoadThatWritesThePreparedFormClearsTheFolder) {
  const ScratchFolder folder;
  const fs::path source = folder.path / "tokenizer.json";
  std::ofstream(source, std::ios::binary)
      << R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"pre_tokenizer":null,"added_tokens":[]})";
  const fs::path cache = folder.path / "cache";
  fs::create_directories(cache);
  write_file(cache / kDead, "half a prepared form", std::chrono::minutes(60));
  write_file(cache / kLive, "a writer is writing", std::chrono::minutes(0));
  const HfTokenizer::FileLoad first = HfTokenizer::load_file(source.string(), cache.string());
  EXPECT_EQ(first.origin, HfTokenizer::FileLoad::Origin::ParsedAndCached);
  std::set<std::string> left = names(cache);
  EXPECT_EQ(left.count(kDead), 0u);
  EXPECT_EQ(left.count(kLive), 1u);
  EXPECT_EQ(left.size(), 2u);  // the live writer's file and the new prepared form
  // A load from the cache writes nothing, and so leaves the folder as it is.
  write_file(cache / kDead, "half a prepared form", std::chrono::minutes(60));
  EXPECT_EQ(HfTokenizer::load_file(source.string(), cache.string()).origin, HfTokenizer::FileLoad::Origin::Cache);
  EXPECT_EQ(names(cache).count(kDead), 1u);
}

}  // namespace
}  // namespace ctxwin
