// Counting on libuv's worker pool, for every tokenizer family: the event loop keeps running while
// large texts are counted. The one batch / async engine of the addon.
//
// The JavaScript thread only copies the strings out of V8 (as UTF-16: Node-API reads a string on
// its own thread only); the jobs convert them to UTF-8 and count, so that the part of a batch that
// cannot run in parallel, and the time the event loop is held, is the copy alone. A batch of 2^20
// UTF-16 code units or more (a megabyte of ASCII) is counted by up to four jobs (no more than the
// machine's cores, and libuv's pool has four threads by default), which take the texts one at a
// time from a shared position until none is left: a job never waits while another still has a
// queue, however unequal the texts (a huge one among tiny ones, slow scripts in a run). The counts
// land at their texts' positions; one promise resolves when the last job is done. Each job borrows
// a cache of its own from the thread's state (the synchronous calls' cache is not synchronized)
// and gives it back when it completes, and holds the counter, so that a tokenizer.json model
// outlives the jobs counting with it. Jobs are AsyncJobs (async_job.hpp): nothing escapes their
// completion while an environment shuts down (worker.terminate()).
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin::binding {

// Counts `texts` (JavaScript strings as UTF-16, lone surrogates counted as U+FFFD like every other
// count) with `counter` on the pool. The promise resolves with a number, the count of the one text,
// or (`many`) with a Uint32Array of the counts in order. Its `cancel()` stops the jobs taking
// further texts (an AbortSignal's abort, in the TypeScript layer, which then rejects its own promise).
Napi::Promise count_on_pool(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::vector<std::u16string> texts, bool many);

}  // namespace ctxwin::binding
