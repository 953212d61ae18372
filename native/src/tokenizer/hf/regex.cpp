#include "ctxwin/tokenizer/hf/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <chrono>
#include <ctime>

#include "ctxwin/error.hpp"

namespace ctxwin {

struct Regex::Code {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Code() { pcre2_code_free(code); }
};

namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return std::string(reinterpret_cast<const char*>(buffer));
}

// A reading of the budget's clock, in nanoseconds.
struct ClockReading {
  std::uint64_t ns;
  bool thread_cpu;  // false: the wall clock (no thread clock on this platform)
};

// CPU time of this thread: wall time would charge a regex for the other work of a loaded machine.
// Where the platform has no thread clock (WebAssembly), a steady clock, and the caller scales its
// budget by RegexBudget::kWallClockFactor.
ClockReading read_clock() {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) {
    return {static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(now.tv_nsec), true};
  }
  return {static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count()),
          false};
}

}  // namespace

// One ovector pair is all a search reads (the whole match), whatever groups the pattern has.
struct RegexBudget::Scratch {
  Scratch() : match(pcre2_match_data_create(1, nullptr)), context(pcre2_match_context_create(nullptr)) {
    if (match == nullptr || context == nullptr) {
      pcre2_match_data_free(match);
      pcre2_match_context_free(context);
      throw std::bad_alloc();
    }
    pcre2_set_heap_limit(context, RegexBudget::kHeapLimitKib);
  }
  ~Scratch() {
    pcre2_match_data_free(match);
    pcre2_match_context_free(context);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  pcre2_match_data* match;
  pcre2_match_context* context;
};

RegexBudget::RegexBudget(std::size_t text_bytes) noexcept : text_bytes_(text_bytes) {}
RegexBudget::~RegexBudget() = default;

RegexBudget::Scratch& RegexBudget::scratch() {
  if (!scratch_) scratch_ = std::make_unique<Scratch>();
  return *scratch_;
}

void RegexBudget::charge(const Regex& re) {
  const std::uint64_t budget_ms = kBudgetBaseMs + kBudgetNsPerByte * text_bytes_ / 1'000'000u;
  if (deadline_ns_ == 0) {
    const ClockReading start = read_clock();
    const std::uint64_t budget_ns = kBudgetBaseMs * 1'000'000u + kBudgetNsPerByte * static_cast<std::uint64_t>(text_bytes_);
    deadline_ns_ = start.ns + (start.thread_cpu ? budget_ns : budget_ns * kWallClockFactor);
    return;
  }
  if (++calls_since_check_ < kCallsPerCheck) return;
  calls_since_check_ = 0;
  if (const ClockReading now = read_clock(); now.ns > deadline_ns_) {
    re.over_budget(now.thread_cpu ? "took more than " + std::to_string(budget_ms) + " ms of CPU time on a text of " +
                                        std::to_string(text_bytes_) + " bytes"
                                  : "took more than " + std::to_string(budget_ms * kWallClockFactor) +
                                        " ms (no CPU clock here: wall time) on a text of " + std::to_string(text_bytes_) + " bytes");
  }
}

Regex::Regex(std::string_view pattern) : pattern_(pattern), code_(std::make_unique<Code>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (code_->code == nullptr) {
    throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer,
                "regex /" + pattern_ + "/ is not supported: " + pcre2_message(error) + " at offset " + std::to_string(offset));
  }
  // Without a JIT (WebAssembly, or a PCRE2 built without it) the interpreter matches the same.
  code_->jit = pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

void Regex::over_budget(const std::string& what) const {
  throw Error(ErrorKind::Other, ErrorCode::RegexBudget,
              "regex /" + pattern_ + "/ " + what + ": the pattern backtracks too much for this text");
}

void Regex::for_each_match(std::string_view text, const std::function<void(std::size_t, std::size_t)>& on_match) const {
  RegexBudget budget(text.size());
  for_each_match(text, budget, on_match);
}

void Regex::for_each_match(std::string_view text, RegexBudget& budget,
                           const std::function<void(std::size_t, std::size_t)>& on_match) const {
  RegexBudget::Scratch& scratch = budget.scratch();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t at = 0;
  while (at <= text.size()) {
    budget.charge(*this);
    const std::size_t left = text.size() - at;
    const std::uint64_t steps = RegexBudget::kBaseSteps + std::uint64_t{RegexBudget::kStepsPerByte} * left;
    pcre2_set_match_limit(scratch.context, steps > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(steps));
    int rc = pcre2_match(code_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK, scratch.match, scratch.context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      // The JIT's default stack is small; the interpreter's heap-based frames go further.
      rc = pcre2_match(code_->code, subject, text.size(), at, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, scratch.match, scratch.context);
    }
    if (rc == PCRE2_ERROR_NOMATCH) return;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
      over_budget("took more than " + std::to_string(steps) + " backtracking steps at byte " + std::to_string(at));
    }
    if (rc == PCRE2_ERROR_HEAPLIMIT) {
      over_budget("needed more than " + std::to_string(RegexBudget::kHeapLimitKib / 1024) + " MB at byte " + std::to_string(at));
    }
    // 0: the match data holds fewer pairs than the pattern has groups; the whole match is there.
    if (rc < 0) {
      throw Error(ErrorKind::Other, ErrorCode::UnsupportedTokenizer, "regex /" + pattern_ + "/ failed on the text: " + pcre2_message(rc));
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(scratch.match);
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
