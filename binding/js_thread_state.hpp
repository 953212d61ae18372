// What the addon keeps per JavaScript thread (per Node-API environment: the main thread and each
// worker_thread have their own): the piece caches the tokenizer counts through, and the buffers
// strings are converted in.
//
// Shared by every Tokenizer of the thread, so that a new TiktokenCounter costs nothing and a
// thousand of them (one per conversation, say) hold one cache per encoding, not a thousand:
// each cache is 400 KB to a few MB, which Node's garbage collector would not see behind a small
// JavaScript object. Worker-thread jobs borrow a cache of their own (a cache is not synchronized)
// and give it back when they finish, so repeated async counting stays warm too.
//
// All of it is used on the JavaScript thread only: lending and giving back happen when a job is
// queued and when it completes, both on that thread.
#pragma once

#include <napi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/bpe/encoding.hpp"
#include "ctxwin/tokenizer/bpe/piece_cache.hpp"
#include "ctxwin/tokenizer/claude/claude_tokenizer.hpp"

namespace ctxwin::binding {

class JsThreadState {
 public:
  // The state of `env`'s thread, created with the module.
  static JsThreadState& of(Napi::Env env);
  // The same, or null once the environment has let it go; never throws (for completions that may
  // run while the environment shuts down).
  static JsThreadState* find(napi_env env) noexcept;
  static void install(Napi::Env env);

  // The cache synchronous calls on this thread use for `encoding`. Look it up per call: it lives
  // until clear_caches().
  PieceCache& cache_for(const Encoding& encoding);

  // A cache for one worker job, and its return when the job is done.
  std::unique_ptr<PieceCache> lend(const Encoding& encoding);
  void give_back(const Encoding& encoding, std::unique_ptr<PieceCache> cache, unsigned generation);
  unsigned generation() const noexcept { return generation_; }

  // The segment cache every ClaudeTokenizer of this thread counts `family` through (bounded to
  // kClaudeCacheBytes; it fills only as text is counted).
  claude::SegmentCache& claude_cache_for(const claude::ClaudeTokenizer& family);

  // Forgets every remembered piece and segment and frees the caches and buffers (counts stay exact; only
  // speed changes). Caches lent out now are dropped when they come back.
  void clear_caches();

  // Reusable buffers for converting one string at a time; released after a call that grew them
  // past kKeptBufferBytes, so that counting one huge text does not pin its copies.
  std::u16string& utf16() noexcept { return utf16_; }
  std::string& utf8() noexcept { return utf8_; }
  void trim_buffers() {
    if (utf16_.capacity() * sizeof(char16_t) > kKeptBufferBytes || utf8_.capacity() > kKeptBufferBytes) release_buffers();
  }

 private:
  void release_buffers();

  static constexpr std::size_t kKeptBufferBytes = 1 << 20;
  static constexpr std::size_t kSpareCaches = 4;  // libuv's default pool size
  static constexpr std::size_t kClaudeCacheBytes = std::size_t{16} << 20;

  std::map<const Encoding*, std::unique_ptr<PieceCache>> caches_;
  std::map<const Encoding*, std::vector<std::unique_ptr<PieceCache>>> spares_;
  std::map<const claude::ClaudeTokenizer*, std::unique_ptr<claude::SegmentCache>> claude_caches_;
  unsigned generation_ = 0;
  std::u16string utf16_;
  std::string utf8_;
};

}  // namespace ctxwin::binding
