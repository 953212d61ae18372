#include "tokenizer/hf/cache_folder.hpp"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>
#include <thread>

namespace ctxwin::hf {

bool write_atomically(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  // Unique per writer without std::random_device, which libstdc++ builds on arc4random (glibc
  // 2.36, newer than the prebuilt addon may need): the clock, this frame's address (which address
  // space randomization makes differ between processes) and the thread.
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  const auto frame = reinterpret_cast<std::uintptr_t>(&error);
  const std::filesystem::path temporary = path.string() + ".tmp-" + std::to_string(now) + "-" + std::to_string(frame) + "-" +
                                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
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

}  // namespace ctxwin::hf
