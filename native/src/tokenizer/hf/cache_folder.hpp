#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string_view>

// The prepared forms' cache folder: whole files written through a temporary file and a rename, and
// the temporary files of writers that died before their rename cleared away.
namespace ctxwin::hf {

// A writer's temporary file gets its bytes in well under a second (tens of MB) and is renamed at
// once; one left unchanged this long is a dead writer's. Age, not the writer's pid: the folder may
// be shared by processes in other pid namespaces (containers on one volume, machines on a network
// file system), where a live writer's pid looks dead; pids are reused, so a dead one can look
// alive; the WebAssembly build has no real pid. And a live writer whose file is removed anyway
// (stopped for that long) loses only its rename: its load reports "parse", nothing is corrupted.
inline constexpr std::chrono::minutes kStaleTemporaryAge{10};

// Writes `bytes` to `path` through a temporary file in the same folder and a rename: concurrent
// writers each rename a whole file, and a reader never sees a half-written one. A folder that
// cannot be written only costs the next load its parse. False when nothing was written.
bool write_atomically(const std::filesystem::path& path, std::string_view bytes);

// Removes the temporary files of prepared forms (`tokenizer-json-*.tmp-*`) in `folder` last written
// `max_age` ago or longer; nothing else. Safe beside concurrent writers and cleaners: a live
// writer's file is younger, and a file another cleaner removed first is skipped. Returns how many
// this call removed.
std::size_t remove_stale_temporaries(const std::filesystem::path& folder,
                                     std::filesystem::file_time_type::duration max_age = kStaleTemporaryAge);

}  // namespace ctxwin::hf
