// What the addon keeps per JavaScript thread (per Node-API environment: the main thread and each
// worker_thread have their own): the caches every tokenizer family counts through, and the
// buffers strings are converted in.
//
// One cache policy for every family: each counter (an OpenAI encoding, a Claude family, a loaded
// tokenizer.json model) has one cache per thread, made by the counter (TokenCounter::new_cache)
// and shared by all of that thread's Counter objects of it, so that a new TiktokenCounter costs
// nothing and a thousand of them (one per conversation, say) hold one cache, not a thousand: a
// cache is 400 KB to 16 MB, which Node's garbage collector would not see behind a small
// JavaScript object. Worker-pool jobs borrow caches of their own (a cache is not synchronized)
// and give them back when they finish, up to four spares per counter, so repeated async counting
// stays warm too.
//
// Encodings and Claude families live as long as the process; a tokenizer.json model lives as long
// as the Counter objects and jobs that hold it. Its caches are forgotten once it is gone (they are
// keyed by its address, which a later model may reuse): the next new counter's first count
// sweeps them out. So memory stays bounded by the counters a thread has held at once.
//
// All of it is used on the JavaScript thread only: lending and giving back happen when a job is
// queued and when it completes, both on that thread.
#pragma once

#include <napi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin::binding {

class JsThreadState {
 public:
  // The state of `env`'s thread, created with the module.
  static JsThreadState& of(Napi::Env env);
  // The same, or null once the environment has let it go; never throws (for completions that may
  // run while the environment shuts down).
  static JsThreadState* find(napi_env env) noexcept;
  static void install(Napi::Env env);

  // The cache synchronous calls on this thread count `counter` through. Look it up again after
  // clear_caches() (generation() tells): that frees it.
  CountCache& cache_for(const std::shared_ptr<const TokenCounter>& counter);

  // A cache for one pool job, and its return when the job is done.
  std::unique_ptr<CountCache> lend(const std::shared_ptr<const TokenCounter>& counter);
  void give_back(const TokenCounter& counter, std::unique_ptr<CountCache> cache, unsigned generation);
  unsigned generation() const noexcept { return generation_; }

  // Forgets what this thread's caches of `counter` remember (counts stay exact; only speed
  // changes). Caches lent out now keep theirs.
  void clear_caches_of(const TokenCounter& counter);
  // Forgets every remembered piece and segment and frees the caches and buffers. Caches lent out
  // now are dropped when they come back.
  void clear_caches();

  // Reusable buffers for converting one string at a time; released after a call that grew them
  // past kKeptBufferBytes, so that counting one huge text does not pin its copies.
  std::u16string& utf16() noexcept { return utf16_; }
  std::string& utf8() noexcept { return utf8_; }
  void trim_buffers() {
    if (utf16_.capacity() * sizeof(char16_t) > kKeptBufferBytes || utf8_.capacity() > kKeptBufferBytes) release_buffers();
  }

 private:
  struct Caches {
    std::weak_ptr<const TokenCounter> owner;  // empty for counters that live as long as the process
    bool process_lifetime = false;
    std::unique_ptr<CountCache> cache;                // for synchronous calls
    std::vector<std::unique_ptr<CountCache>> spares;  // given back by pool jobs
    bool belongs_to(const std::shared_ptr<const TokenCounter>& counter) const noexcept;
  };
  Caches& caches_of(const std::shared_ptr<const TokenCounter>& counter);
  void release_buffers();

  static constexpr std::size_t kKeptBufferBytes = 1 << 20;
  static constexpr std::size_t kSpareCaches = 4;  // libuv's default pool size

  std::map<const TokenCounter*, Caches> caches_;
  unsigned generation_ = 0;
  std::u16string utf16_;
  std::string utf8_;
};

}  // namespace ctxwin::binding
