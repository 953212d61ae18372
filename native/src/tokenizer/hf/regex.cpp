#include "ctxwin/tokenizer/hf/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "ctxwin/error.hpp"

namespace ctxwin {

struct Regex::Code {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Code() { pcre2_code_free(code); }
};

namespace {

struct MatchData {
  explicit MatchData(const pcre2_code* code) : data(pcre2_match_data_create_from_pattern(code, nullptr)) {
    if (data == nullptr) throw std::bad_alloc();
  }
  ~MatchData() { pcre2_match_data_free(data); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* data;
};

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return std::string(reinterpret_cast<const char*>(buffer));
}

}  // namespace

Regex::Regex(std::string_view pattern) : pattern_(pattern), code_(std::make_unique<Code>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                              &error, &offset, nullptr);
  if (code_->code == nullptr) {
    throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer,
                "regex /" + pattern_ + "/ is not supported: " + pcre2_message(error) + " at offset " +
                    std::to_string(offset));
  }
  // Without a JIT (WebAssembly, or a PCRE2 built without it) the interpreter matches the same.
  code_->jit = pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

void Regex::for_each_match(std::string_view text, const std::function<void(std::size_t, std::size_t)>& on_match) const {
  MatchData match(code_->code);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t at = 0;
  while (at <= text.size()) {
    int rc = pcre2_match(code_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK, match.data, nullptr);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      // The JIT's default stack is small; the interpreter's heap-based frames go further.
      rc = pcre2_match(code_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.data, nullptr);
    }
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc < 0) {
      throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer,
                  "regex /" + pattern_ + "/ failed on the text: " + pcre2_message(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.data);
    const std::size_t start = ovector[0];
    const std::size_t end = ovector[1];
    if (end > start) {
      on_match(start, end);
      at = end;
      continue;
    }
    // An empty match: step over one code point, as Oniguruma's find_iter does.
    if (start >= text.size()) return;
    std::size_t next = start + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    at = next;
  }
}

}  // namespace ctxwin
