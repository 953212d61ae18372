// Counting on libuv's worker pool, for every tokenizer family: the event loop keeps running while
// large texts are counted. The one batch / async engine of the addon.
//
// A batch of a megabyte or more is split over up to four jobs (no more than the machine's cores,
// and libuv's pool has four threads by default), balanced by bytes; one promise resolves when the
// last job is done. Each job borrows a cache of its own from
// the thread's state (the synchronous calls' cache is not synchronized) and gives it back when it
// completes, and holds the counter, so that a tokenizer.json model outlives the jobs counting with
// it. Jobs are AsyncJobs (async_job.hpp): nothing escapes their completion while an environment
// shuts down (worker.terminate()).
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "ctxwin/tokenizer/token_counter.hpp"

namespace ctxwin::binding {

// Counts `texts` (valid UTF-8) with `counter` on the pool. The promise resolves with a number, the
// count of the one text, or (`many`) with a Uint32Array of the counts in order.
Napi::Promise count_on_pool(Napi::Env env, std::shared_ptr<const TokenCounter> counter, std::vector<std::string> texts, bool many);

}  // namespace ctxwin::binding
