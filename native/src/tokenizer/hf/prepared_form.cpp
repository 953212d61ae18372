#include "tokenizer/hf/prepared_form.hpp"

#include <bit>

namespace ctxwin::hf {

namespace {

constexpr char kMagic[8] = {'c', 't', 'x', 'w', 'i', 'n', 'T', 'J'};

struct Header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t little_endian;  // 1: the tables are in this machine's byte order
  std::uint64_t source_hash;
  std::uint64_t source_size;
  std::uint64_t payload_size;
  std::uint64_t payload_hash;
};
static_assert(sizeof(Header) == 48);

inline std::uint64_t load64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline std::uint64_t mix(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 33);
}

}  // namespace

std::uint64_t content_hash(std::string_view bytes) noexcept {
  constexpr std::uint64_t kPrime = 0x9E3779B97F4A7C15ull;
  std::uint64_t lanes[4] = {kPrime, kPrime ^ 1, kPrime ^ 2, kPrime ^ 3};
  const char* p = bytes.data();
  std::size_t n = bytes.size();
  for (; n >= 32; p += 32, n -= 32) {
    for (int i = 0; i < 4; ++i) lanes[i] = std::rotl(lanes[i] ^ (load64(p + 8 * i) * 0x87C37B91114253D5ull), 31) * kPrime;
  }
  std::uint64_t h = bytes.size();
  for (const std::uint64_t lane : lanes) h = mix(h ^ lane);
  for (; n >= 8; p += 8, n -= 8) h = mix(h ^ load64(p));
  std::uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return mix(h ^ tail ^ (std::uint64_t{n} << 56));
}

std::string seal_prepared(std::string_view payload, std::uint64_t source_hash, std::uint64_t source_size) {
  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = kPreparedFormVersion;
  header.little_endian = std::endian::native == std::endian::little ? 1 : 0;
  header.source_hash = source_hash;
  header.source_size = source_size;
  header.payload_size = payload.size();
  header.payload_hash = content_hash(payload);
  std::string out(reinterpret_cast<const char*>(&header), sizeof header);
  out.append(payload);
  return out;
}

std::string_view open_prepared(std::string_view file, std::uint64_t source_hash, std::uint64_t source_size) {
  if (file.size() < sizeof(Header)) throw PreparedFormError("shorter than its header");
  Header header;
  std::memcpy(&header, file.data(), sizeof header);
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) throw PreparedFormError("not a prepared tokenizer");
  if (header.version != kPreparedFormVersion) throw PreparedFormError("another format version");
  if (header.little_endian != (std::endian::native == std::endian::little ? 1u : 0u)) throw PreparedFormError("another byte order");
  if (header.source_hash != source_hash || header.source_size != source_size) throw PreparedFormError("made from another tokenizer.json");
  const std::string_view payload = file.substr(sizeof header);
  if (header.payload_size != payload.size()) throw PreparedFormError("truncated or extended");
  if (header.payload_hash != content_hash(payload)) throw PreparedFormError("its checksum does not match");
  return payload;
}

}  // namespace ctxwin::hf
