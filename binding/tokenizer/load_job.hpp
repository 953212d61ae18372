// Loading a tokenizer.json on libuv's worker pool: reading, hashing and parsing a 10-30 MB file
// (or copying its prepared form back from the cache folder) takes from tens of milliseconds to
// seconds, which the event loop should not wait for. The promise resolves with a new Counter
// (`counter_class`, the addon's Counter) holding the loaded tokenizer.
#pragma once

#include <napi.h>

#include <string>

namespace ctxwin::binding {

// `kind` "tokenizer.json": `source` is a file path and `cache_dir` the prepared forms' folder
// (empty: none). "tokenizer.json-text": `source` is the file's text.
Napi::Promise load_on_pool(Napi::Env env, Napi::Function counter_class, std::string kind, std::string source, std::string cache_dir);

}  // namespace ctxwin::binding
