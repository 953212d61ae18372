#include "tokenizer/hf/json_loader.hpp"

#include "tokenizer/hf/json_fields.hpp"

namespace ctxwin::hf {

namespace {

using json = nlohmann::json;

class Handler : public nlohmann::json_sax<json> {
 public:
  explicit Handler(LoadedJson& out) : out_(out) {}

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override {
    if (mode_ == Mode::Vocab) {
      if (v < 0 || v > 0xFFFFFFFEll) invalid("model.vocab[\"" + key_ + "\"] is not a token id");
      out_.vocab.emplace_back(std::move(key_), static_cast<std::uint32_t>(v));
      return true;
    }
    return value(json(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (mode_ == Mode::Vocab) {
      if (v > 0xFFFFFFFEull) invalid("model.vocab[\"" + key_ + "\"] is not a token id");
      out_.vocab.emplace_back(std::move(key_), static_cast<std::uint32_t>(v));
      return true;
    }
    return value(json(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    if (mode_ == Mode::Vocab) invalid("model.vocab[\"" + key_ + "\"] is not a token id");
    return value(json(v));
  }
  bool string(string_t& v) override {
    switch (mode_) {
      case Mode::Merges: {
        // The older spelling: "left right", split at the one space.
        const std::size_t space = v.find(' ');
        if (space == std::string::npos || v.find(' ', space + 1) != std::string::npos) {
          invalid("model.merges[" + std::to_string(out_.merges.size()) + "] is not \"left right\"");
        }
        out_.merges.emplace_back(v.substr(0, space), v.substr(space + 1));
        return true;
      }
      case Mode::MergePair:
        pair_.push_back(std::move(v));
        return true;
      case Mode::Vocab:
        invalid("model.vocab[\"" + key_ + "\"] is not a token id");
      case Mode::Dom:
        break;
    }
    return value(json(std::move(v)));
  }
  bool binary(binary_t&) override { invalid("binary values are not JSON"); }

  bool start_object(std::size_t) override {
    if (mode_ != Mode::Dom) invalid("model.vocab and model.merges hold no objects");
    if (in_model() && key_ == "vocab") {
      mode_ = Mode::Vocab;
      return true;
    }
    open(json::object());
    return true;
  }
  bool end_object() override {
    if (mode_ == Mode::Vocab) {
      mode_ = Mode::Dom;
      return true;
    }
    close();
    return true;
  }
  bool start_array(std::size_t) override {
    if (mode_ == Mode::Merges) {
      mode_ = Mode::MergePair;
      pair_.clear();
      return true;
    }
    if (mode_ != Mode::Dom) invalid("model.merges entries are [left, right] or \"left right\"");
    if (in_model() && key_ == "merges") {
      mode_ = Mode::Merges;
      return true;
    }
    open(json::array());
    return true;
  }
  bool end_array() override {
    if (mode_ == Mode::MergePair) {
      if (pair_.size() != 2) invalid("model.merges[" + std::to_string(out_.merges.size()) + "] is not [left, right]");
      out_.merges.emplace_back(std::move(pair_[0]), std::move(pair_[1]));
      mode_ = Mode::Merges;
      return true;
    }
    if (mode_ == Mode::Merges) {
      mode_ = Mode::Dom;
      return true;
    }
    close();
    return true;
  }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& error) override {
    invalid("not JSON at byte " + std::to_string(position) + ": " + error.what());
  }

 private:
  enum class Mode { Dom, Vocab, Merges, MergePair };

  // True when the container being opened is a direct member of the top-level "model" object.
  bool in_model() const { return stack_.size() == 2 && path_[1] == "model"; }

  json* add(json v) {
    if (stack_.empty()) {
      out_.document = std::move(v);
      return &out_.document;
    }
    json& parent = *stack_.back();
    if (parent.is_object()) {
      json& slot = parent[key_];
      slot = std::move(v);
      return &slot;
    }
    parent.push_back(std::move(v));
    return &parent.back();
  }
  bool value(json v) {
    add(std::move(v));
    return true;
  }
  void open(json container) {
    const bool in_object = !stack_.empty() && stack_.back()->is_object();
    std::string name = in_object ? key_ : std::string();
    // Pointers stay valid: an open container is the last member of its parent until it closes.
    stack_.push_back(add(std::move(container)));
    path_.push_back(std::move(name));
  }
  void close() {
    stack_.pop_back();
    path_.pop_back();
  }

  LoadedJson& out_;
  Mode mode_ = Mode::Dom;
  std::string key_;
  std::vector<json*> stack_;
  std::vector<std::string> path_;
  std::vector<std::string> pair_;
};

}  // namespace

LoadedJson load_tokenizer_json(std::string_view text) {
  LoadedJson out;
  Handler handler(out);
  json::sax_parse(text.begin(), text.end(), &handler);
  if (!out.document.is_object()) invalid("the top level is not an object");
  return out;
}

}  // namespace ctxwin::hf
