#pragma once

#include <filesystem>
#include <string_view>

// The prepared forms' cache folder: whole files written through a temporary file and a rename.
namespace ctxwin::hf {

// Writes `bytes` to `path` through a temporary file in the same folder and a rename: concurrent
// writers each rename a whole file, and a reader never sees a half-written one. A folder that
// cannot be written only costs the next load its parse. False when nothing was written.
bool write_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ctxwin::hf
