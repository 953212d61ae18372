// The prepared form of a tokenizer.json: the loaded model's tables written as they sit in memory,
// so that a later load copies them back instead of parsing 10-30 MB of JSON and rebuilding the
// hash table and the merge index (that is nearly all of a load). A file read back from disk is
// untrusted: the envelope holds a format version, the hash and size of the tokenizer.json it was
// made from, and a checksum of the payload; the payload's reader checks every offset, length and
// index it later relies on. Anything wrong is a PreparedFormError, and the caller parses the
// tokenizer.json again. Internal to the core.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ctxwin::hf {

// A prepared form that cannot be used: stale, truncated, corrupt, or of another format version.
class PreparedFormError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bumped whenever the payload's layout or the meaning of a table changes.
inline constexpr std::uint32_t kPreparedFormVersion = 1;

// A 64-bit hash of `bytes` in four independent lanes (several GB/s): it keys a prepared form by
// the tokenizer.json's contents and checks the payload. Not cryptographic: it detects damage and
// staleness, not an attacker who can write the cache folder (who could also write the package).
std::uint64_t content_hash(std::string_view bytes) noexcept;

// The envelope: header (magic, version, source hash and size, payload size and checksum) + payload.
std::string seal_prepared(std::string_view payload, std::uint64_t source_hash, std::uint64_t source_size);
// The payload of a sealed file made from the source with this hash and size; throws
// PreparedFormError when the file is of another version or source, truncated, or corrupt.
std::string_view open_prepared(std::string_view file, std::uint64_t source_hash, std::uint64_t source_size);

// Appends fixed-width little-endian values and length-prefixed arrays.
class PreparedWriter {
 public:
  template <typename T>
  void value(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void bytes(std::string_view b) {
    value<std::uint64_t>(b.size());
    out_.append(b);
  }
  template <typename T>
  void array(const T* data, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    value<std::uint64_t>(count);
    out_.append(reinterpret_cast<const char*>(data), count * sizeof(T));
  }
  template <typename T>
  void array(const std::vector<T>& v) {
    array(v.data(), v.size());
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Reads what PreparedWriter wrote; every read past the end is a PreparedFormError.
class PreparedReader {
 public:
  explicit PreparedReader(std::string_view in) : in_(in) {}
  template <typename T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  std::string_view bytes() { return take(length(1)); }
  // An array of at most `limit` elements.
  template <typename T>
  std::vector<T> array(std::uint64_t limit) {
    const std::uint64_t count = length(sizeof(T));
    if (count > limit) throw PreparedFormError("an array longer than its limit");
    std::vector<T> v(static_cast<std::size_t>(count));
    if (count > 0) std::memcpy(v.data(), take(count * sizeof(T)).data(), count * sizeof(T));
    return v;
  }
  bool done() const noexcept { return in_.empty(); }

 private:
  // A length prefix whose elements of `size` bytes fit in what is left.
  std::uint64_t length(std::size_t size) {
    const auto n = value<std::uint64_t>();
    if (n > in_.size() / size) throw PreparedFormError("a length past the end of the file");
    return n;
  }
  std::string_view take(std::uint64_t n) {
    if (n > in_.size()) throw PreparedFormError("the file ends early");
    const std::string_view out = in_.substr(0, static_cast<std::size_t>(n));
    in_.remove_prefix(static_cast<std::size_t>(n));
    return out;
  }
  std::string_view in_;
};

}  // namespace ctxwin::hf
