// The package's compact rank files (data/openai/*.bin) against OpenAI's .tiktoken files: each one,
// read back and written out in OpenAI's format, is that file byte for byte (the same tokens in the
// same ranks); and the reader refuses what is not a rank file, never sized by what it claims.
#include "ctxwin/tokenizer/bpe/rank_file.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ctxwin/error.hpp"
#include "ctxwin/tokenizer/bpe/encoding.hpp"

namespace ctxwin {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file) << path;
  std::ostringstream contents;
  contents << file.rdbuf();
  return std::move(contents).str();
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::uint32_t chunk = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<unsigned char>(bytes[i + 2]);
    for (std::size_t k = 0; k < 4; ++k) out += i + k <= bytes.size() ? kAlphabet[(chunk >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

// The table as OpenAI writes it: "base64(bytes) rank\n" for every rank that has a token.
std::string as_tiktoken(const RankTable& table) {
  std::string out;
  for (std::uint32_t rank = 0; rank <= table.max_rank(); ++rank) {
    const std::string_view bytes = table.bytes_of(rank);
    if (!bytes.empty()) out += base64(bytes) + " " + std::to_string(rank) + "\n";
  }
  return out;
}

class RankFileOfEncoding : public ::testing::TestWithParam<const char*> {};

TEST_P(RankFileOfEncoding, WritesOpenAisFileBackByteForByte) {
  const std::string name = GetParam();
  const RankTable compact = parse_rank_file(read_file(std::string(CTXWIN_OPENAI_DATA_DIR) + "/" + name + ".bin"), name + ".bin");
  const std::string tiktoken = read_file(std::string(CTXWIN_RANK_DATA_DIR) + "/" + name + ".tiktoken");
  const std::string rendered = as_tiktoken(compact);
  EXPECT_EQ(rendered.size(), tiktoken.size());
  EXPECT_TRUE(rendered == tiktoken) << name << ": the compact file does not render OpenAI's .tiktoken file";
  const RankTable original = RankTable::parse(tiktoken, name + ".tiktoken");
  EXPECT_EQ(compact.size(), original.size());
  EXPECT_EQ(compact.content_hash(), original.content_hash());
}

TEST_P(RankFileOfEncoding, AFolderWithOnlyTheTiktokenFileStillLoads) {
  const std::string name = GetParam();
  const auto folder = std::filesystem::temp_directory_path() / ("ctxwin-rank-file-test-" + name);
  std::filesystem::create_directories(folder);
  std::filesystem::copy_file(std::string(CTXWIN_RANK_DATA_DIR) + "/" + name + ".tiktoken", folder / (name + ".tiktoken"),
                             std::filesystem::copy_options::overwrite_existing);
  const RankTable from_tiktoken = load_encoding_ranks(folder.string(), name);
  const RankTable from_compact = load_encoding_ranks(CTXWIN_OPENAI_DATA_DIR, name);
  EXPECT_EQ(from_tiktoken.content_hash(), from_compact.content_hash());
  std::filesystem::remove_all(folder);
}

INSTANTIATE_TEST_SUITE_P(OpenAi, RankFileOfEncoding, ::testing::Values("r50k_base", "p50k_base", "cl100k_base", "o200k_base"));

// A compact file of `tokens` by rank ("" where a rank has no token), as scripts/rank-data.mjs
// writes it.
std::string compact_file_of(const std::vector<std::string>& tokens) {
  std::string lengths;
  std::string bytes;
  for (const std::string& token : tokens) {
    std::size_t n = token.size();
    do {
      lengths += static_cast<char>((n & 0x7F) | (n > 0x7F ? 0x80 : 0));
      n >>= 7;
    } while (n > 0);
    bytes += token;
  }
  std::string out(kRankFileMagic);
  for (std::uint32_t v : {static_cast<std::uint32_t>(tokens.size()), static_cast<std::uint32_t>(bytes.size())}) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  return out + lengths + bytes;
}

// The 256 single bytes, then `extra`; a rank without a token at `gap_at`.
std::string compact_file(const std::vector<std::string>& extra, std::uint32_t gap_at = 0xFFFFFFFFu) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  tokens.insert(tokens.end(), extra.begin(), extra.end());
  if (gap_at < tokens.size()) tokens.insert(tokens.begin() + gap_at, std::string());
  return compact_file_of(tokens);
}

void expect_refused(const std::string& contents, std::string_view message) {
  try {
    parse_rank_file(contents, "custom.bin");
    ADD_FAILURE() << "accepted: " << message;
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::RankDataUnavailable);
    EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
  }
}

// A host without the files (Node reading the package's data modules) gives the compact file's
// bytes: the same encoding as from the folder, and the bytes are asked for at most once, never for
// an unknown name.
TEST(RankFile, AnEncodingLoadsFromTheBytesAHostGives) {
  int reads = 0;
  const auto read = [&reads] {
    ++reads;
    return read_file(std::string(CTXWIN_OPENAI_DATA_DIR) + "/r50k_base.bin");
  };
  const Encoding& from_bytes = Encoding::get("r50k_base", read);
  EXPECT_EQ(&from_bytes, &Encoding::get("r50k_base", std::string(CTXWIN_OPENAI_DATA_DIR)));
  EXPECT_EQ(from_bytes.count("hello world"), 2u);
  EXPECT_EQ(&Encoding::get("r50k_base", read), &from_bytes);
  EXPECT_LE(reads, 1);
  try {
    Encoding::get("r51k_base", read);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Range);
  }
  EXPECT_LE(reads, 1);
}

TEST(RankFile, ReadsLongTokensAndRanksWithoutATokenAsTheyAre) {
  const std::string long_token(300, 'x');  // a two-byte length
  const RankTable table = parse_rank_file(compact_file({"ab", long_token}, 256), "custom.bin");
  EXPECT_EQ(table.rank_of("ab"), 257u);
  EXPECT_EQ(table.bytes_of(256), "");
  EXPECT_EQ(table.rank_of(long_token), 258u);
  EXPECT_EQ(table.size(), 258u);
}

TEST(RankFile, RefusesWhatIsNotARankFile) {
  const std::string good = compact_file({"ab"});
  expect_refused("", "bad magic");
  expect_refused("ctxwbp02" + good.substr(8), "bad magic");
  expect_refused(good.substr(0, 15), "bad magic");
  expect_refused(good.substr(0, good.size() - 1), "truncated");
  expect_refused(good + "z", "do not end where the tokens begin");
  std::string huge = good;
  huge[11] = 0x7F;  // 2 billion ranks announced in a file of a few hundred bytes
  expect_refused(huge, "more than 2^20 ranks");
  std::string many = good;
  many[10] = 0x0F;  // a million ranks: more than the file has bytes
  expect_refused(many, "truncated");
}

TEST(RankFile, RefusesWhatATiktokenFileWouldBeRefusedFor) {
  expect_refused(compact_file({"ab", "ab"}), "twice");
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  tokens['A'] = "AB";
  expect_refused(compact_file_of(tokens), "no token for byte 65");
}

TEST(RankFile, ALengthThatNeverEndsIsRefused) {
  std::string file = compact_file({"ab"});
  for (std::size_t i = 16; i < 16 + 257; ++i) file[i] = static_cast<char>(0x81);
  expect_refused(file, "length");
}

}  // namespace
}  // namespace ctxwin
