#include "ctxwin/summary/extractive_summary.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ctxwin/compaction/tool_call.hpp"
#include "ctxwin/compaction/tool_outcome.hpp"
#include "ctxwin/summary/text_facts.hpp"

namespace ctxwin {

namespace {

using nlohmann::json;

// Deeper than any real event; bounds the walk on adversarial input.
constexpr int kMaxDepth = 64;

// Text longer than this (a file's contents, a test log) is "bulk": its paths and numbers are kept
// after those of arguments, errors and messages, which say more about what the agent did.
constexpr std::size_t kBulkTextBytes = 400;

// What an iteration's events say, in first-seen order.
struct Facts {
  std::vector<std::pair<std::string, std::size_t>> tools;  // name, number of calls
  std::size_t tool_results = 0;
  std::size_t events = 0;
  OrderedSet paths;
  OrderedSet figures;
  OrderedSet bulk_paths;
  OrderedSet bulk_figures;
  OrderedSet errors;
  std::vector<std::string> activity;  // short clauses: messages, questions, answers, plain text
  // The calls that only read (a `cat`, a view): what their results print is content, not errors.
  std::vector<std::string> read_calls;
  std::string completion;
  bool completion_seen = false;
  bool completion_verified = false;
};

void count_tool(Facts& facts, std::string name) {
  auto it = std::find_if(facts.tools.begin(), facts.tools.end(), [&](const auto& entry) { return entry.first == name; });
  if (it == facts.tools.end()) {
    facts.tools.emplace_back(std::move(name), 1);
  } else {
    ++it->second;
  }
}

bool is_bookkeeping_key(const std::string& key) {
  // Ids and clocks are not facts worth keeping: their digits would crowd out the real numbers.
  return key == "type" || key == "timestamp" || key == "iteration" || key == "toolCallId" || key == "id" || key == "createdAt" ||
         key == "updatedAt" || key == "summarizedIterations";
}

std::string string_or_empty(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

void collect_text(std::string_view text, Facts& facts) {
  if (text.size() > kBulkTextBytes) {
    collect_paths_and_figures(text, facts.bulk_paths, facts.bulk_figures);
  } else {
    collect_paths_and_figures(text, facts.paths, facts.figures);
  }
}

// The salient items first, then the bulk ones not already listed.
std::vector<std::string> merged(const OrderedSet& salient, const OrderedSet& bulk) {
  OrderedSet all = salient;
  for (const auto& item : bulk.items()) all.add(item);
  return all.items();
}

// Collects paths, figures and error messages from any JSON value; a number is a figure with the
// key it is the value of ("timeoutMs 30000"), never alone.
void walk(const json& value, Facts& facts, const ExtractiveOptions& options, int depth, const std::string& key = {}) {
  if (depth > kMaxDepth) return;
  switch (value.type()) {
    case json::value_t::string:
      collect_text(value.get_ref<const std::string&>(), facts);
      break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      if (!key.empty()) facts.figures.add(key + " " + value.dump());
      break;
    case json::value_t::array:
      for (const auto& item : value) walk(item, facts, options, depth + 1, key);
      break;
    case json::value_t::object:
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (is_bookkeeping_key(it.key())) continue;
        if ((it.key() == "error" || it.key() == "errorMessage") && it.value().is_string()) {
          facts.errors.add(excerpt(it.value().get_ref<const std::string&>(), options.max_excerpt_code_points));
        }
        walk(it.value(), facts, options, depth + 1, it.key());
      }
      break;
    default:
      break;
  }
}

void quote_activity(Facts& facts, const std::string& label, const std::string& text, const ExtractiveOptions& options) {
  const std::string cut = excerpt(text, options.max_excerpt_code_points);
  if (!cut.empty()) facts.activity.push_back(label + " \"" + cut + "\"");
}

void read_event(const json& event, Facts& facts, const ExtractiveOptions& options) {
  ++facts.events;
  const std::string type = string_or_empty(event, "type");
  if (type == "tool_call") {
    const std::string name = string_or_empty(event, "toolName");
    count_tool(facts, name.empty() ? std::string("an unnamed tool") : name);
    const auto args = event.find("args");
    const std::string args_json = args == event.end() ? std::string("null") : args->dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string id = string_or_empty(event, "toolCallId");
    if (!id.empty() && facts.read_calls.size() < 4096 && read_tool_call(name, args_json).read_only) facts.read_calls.push_back(id);
  } else if (type == "tool_result") {
    ++facts.tool_results;
    const std::string id = string_or_empty(event, "toolCallId");
    const bool read = !id.empty() && std::find(facts.read_calls.begin(), facts.read_calls.end(), id) != facts.read_calls.end();
    // A result's lines that report failures are errors too (tools often return them as output),
    // unless the call only read: a file's `except KeyError:` is not one.
    if (auto result = event.find("result"); !read && result != event.end() && result->is_string()) {
      const std::string& text = result->get_ref<const std::string&>();
      std::size_t start = 0;
      while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view line(text.data() + start, end - start);
        if (reports_error(line)) facts.errors.add(excerpt(line, options.max_excerpt_code_points));
        start = end + 1;
      }
    }
  } else if (type == "message") {
    const std::string role = string_or_empty(event, "role");
    quote_activity(facts, (role.empty() ? std::string("message") : role) + " said", string_or_empty(event, "content"), options);
  } else if (type == "human_input_requested") {
    quote_activity(facts, "asked the human", string_or_empty(event, "question"), options);
  } else if (type == "human_input_received") {
    quote_activity(facts, "the human answered", string_or_empty(event, "response"), options);
  } else if (type == "summary") {
    quote_activity(facts, "earlier", string_or_empty(event, "summary"), options);
  } else if (type == "completion") {
    facts.completion_seen = true;
    facts.completion = excerpt(string_or_empty(event, "result"), options.max_excerpt_code_points);
    auto verified = event.find("verified");
    facts.completion_verified = verified != event.end() && verified->is_boolean() && verified->get<bool>();
  }
  walk(event, facts, options, 0);
}

void read_plain_text(std::string_view text, Facts& facts, const ExtractiveOptions& options) {
  ++facts.events;
  const std::string cut = excerpt(text, options.max_excerpt_code_points);
  if (!cut.empty()) facts.activity.push_back(cut);
  collect_text(text, facts);
}

void capitalize_first(std::string& sentence) {
  if (!sentence.empty() && sentence[0] >= 'a' && sentence[0] <= 'z') {
    sentence[0] = static_cast<char>(sentence[0] - 'a' + 'A');
  }
}

std::string write_summary(const Facts& facts, const ExtractiveOptions& options) {
  // Sentence 1: what happened.
  std::vector<std::string> clauses;
  if (!facts.tools.empty()) {
    std::vector<std::string> calls;
    calls.reserve(facts.tools.size());
    for (const auto& [name, count] : facts.tools) {
      calls.push_back(name + " (" + std::to_string(count) + "x)");
    }
    std::string clause = "called " + join_list(calls, options.max_list_items);
    if (facts.tool_results > 0) {
      clause += " and received " + std::to_string(facts.tool_results) + (facts.tool_results == 1 ? " result" : " results");
    }
    clauses.push_back(std::move(clause));
  } else if (facts.tool_results > 0) {
    clauses.push_back("received " + std::to_string(facts.tool_results) + (facts.tool_results == 1 ? " tool result" : " tool results"));
  }
  constexpr std::size_t kMaxActivityClauses = 3;
  for (std::size_t i = 0; i < facts.activity.size() && i < kMaxActivityClauses; ++i) {
    clauses.push_back(facts.activity[i]);
  }
  std::string first;
  if (clauses.empty()) {
    first = "Recorded " + std::to_string(facts.events) + (facts.events == 1 ? " event." : " events.");
  } else {
    for (std::size_t i = 0; i < clauses.size(); ++i) {
      if (i > 0) first += "; ";
      first += clauses[i];
    }
    first += ".";
  }
  capitalize_first(first);

  // Sentence 2: the paths and numbers worth keeping.
  std::string second;
  const std::vector<std::string> paths = merged(facts.paths, facts.bulk_paths);
  // A path's line ("src/a.ts:41") is left to the path already listed: these sentences stay short.
  std::vector<std::string> figures;
  for (const auto& figure : merged(facts.figures, facts.bulk_figures)) {
    const auto colon = figure.rfind(':');
    if (colon != std::string::npos && std::find(paths.begin(), paths.end(), figure.substr(0, colon)) != paths.end()) continue;
    figures.push_back(figure);
  }
  if (!paths.empty()) {
    second = "Referenced " + join_list(paths, options.max_list_items);
    if (!figures.empty()) second += ", with " + join_list(figures, options.max_number_items);
    second += ".";
  } else if (!figures.empty()) {
    second = "Mentioned " + join_list(figures, options.max_number_items) + ".";
  }

  // Sentence 3: how it ended.
  std::string third;
  if (!facts.errors.empty()) {
    std::vector<std::string> quoted;
    for (std::size_t i = 0; i < facts.errors.size() && i < options.max_errors; ++i) {
      quoted.push_back("\"" + facts.errors.items()[i] + "\"");
    }
    third = (facts.errors.size() == 1 ? "Error: " : "Errors: ");
    for (std::size_t i = 0; i < quoted.size(); ++i) third += (i > 0 ? "; " : "") + quoted[i];
    if (facts.errors.size() > quoted.size()) {
      third += " and " + std::to_string(facts.errors.size() - quoted.size()) + " more";
    }
    third += ".";
  }
  if (facts.completion_seen) {
    if (!third.empty()) third += " ";
    third += facts.completion_verified ? "Completed (verified)" : "Completed (unverified)";
    third += facts.completion.empty() ? "." : ": \"" + facts.completion + "\".";
  }
  if (third.empty()) third = "No errors were reported.";

  std::string summary = first;
  if (!second.empty()) summary += " " + second;
  summary += " " + third;
  return summary;
}

Facts read_all(std::span<const std::string_view> texts, const ExtractiveOptions& options) {
  Facts facts;
  for (std::string_view text : texts) {
    json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() && parsed.is_object()) {
      read_event(parsed, facts, options);
    } else {
      read_plain_text(text, facts, options);
    }
  }
  return facts;
}

}  // namespace

std::string summarize_extractive(std::span<const std::string_view> texts, const ExtractiveOptions& options) {
  return write_summary(read_all(texts, options), options);
}

std::string summarize_prompt(std::string_view prompt, const ExtractiveOptions& options) {
  // Parse each line once; keep the events in prompt order.
  std::vector<json> events;
  std::size_t start = 0;
  while (start <= prompt.size()) {
    std::size_t end = prompt.find('\n', start);
    if (end == std::string_view::npos) end = prompt.size();
    const std::string_view line = prompt.substr(start, end - start);
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '{') {
      json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_discarded() && parsed.is_object()) events.push_back(std::move(parsed));
    }
    start = end + 1;
  }
  if (events.empty()) {
    const std::string_view whole[] = {prompt};
    return summarize_extractive(whole, options);
  }
  Facts facts;
  for (const auto& event : events) read_event(event, facts, options);
  return write_summary(facts, options);
}

std::string failure_digest(std::span<const std::string_view> texts, std::string_view reason, const ExtractiveOptions& options) {
  std::string digest = summarize_extractive(texts, options);
  digest += " (summarization failed: ";
  digest += reason.empty() ? std::string_view("unknown error") : reason;
  digest += ")";
  return digest;
}

}  // namespace ctxwin
