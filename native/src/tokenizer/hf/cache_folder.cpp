#include "tokenizer/hf/cache_folder.hpp"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>
#include <thread>

namespace ctxwin::hf {

namespace {

constexpr std::string_view kTemporaryMark = ".tmp-";

// `tokenizer-json-<hash>-v<format>.bin.tmp-<writer>`: what write_atomically names a prepared
// form's temporary file; the folder may hold other files (the caller's), which are left alone.
bool is_prepared_temporary(const std::string& name) {
  return name.starts_with("tokenizer-json-") && name.find(kTemporaryMark) != std::string::npos;
}

}  // namespace

bool write_atomically(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  // Unique per writer without std::random_device, which libstdc++ builds on arc4random (glibc
  // 2.36, newer than the prebuilt addon may need): the clock, this frame's address (which address
  // space randomization makes differ between processes) and the thread.
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const auto frame = reinterpret_cast<std::uintptr_t>(&error);
  const std::filesystem::path temporary = path.string() + std::string(kTemporaryMark) + std::to_string(now) + "-" + std::to_string(frame) +
                                          "-" + std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return false;
  }
  return true;
}

std::size_t remove_stale_temporaries(const std::filesystem::path& folder, std::filesystem::file_time_type::duration max_age) {
  std::error_code error;
  std::filesystem::directory_iterator entry(folder, error);
  if (error) return 0;
  const auto now = std::filesystem::file_time_type::clock::now();
  std::size_t removed = 0;
  for (; entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    if (error) break;
    if (!is_prepared_temporary(entry->path().filename().string())) continue;
    // Asked afresh, not from the listing: a writer may have written to it since.
    std::error_code gone;
    if (!std::filesystem::is_regular_file(entry->path(), gone)) continue;
    const auto written = std::filesystem::last_write_time(entry->path(), gone);
    // Gone meanwhile (renamed by its writer, removed by another cleaner), or written lately (a
    // clock set back makes a file look younger, never older).
    if (gone || now - written < max_age) continue;
    if (std::filesystem::remove(entry->path(), gone)) ++removed;
  }
  return removed;
}

}  // namespace ctxwin::hf
