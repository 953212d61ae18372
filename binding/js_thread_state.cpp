#include "js_thread_state.hpp"

namespace ctxwin::binding {

void JsThreadState::install(Napi::Env env) {
  // Node-API deletes the state when the environment goes away (the thread ends or node exits).
  env.SetInstanceData(std::make_unique<JsThreadState>().release());
}

JsThreadState& JsThreadState::of(Napi::Env env) { return *env.GetInstanceData<JsThreadState>(); }

JsThreadState* JsThreadState::find(napi_env env) noexcept {
  void* data = nullptr;
  if (napi_get_instance_data(env, &data) != napi_ok) return nullptr;
  return static_cast<JsThreadState*>(data);
}

bool JsThreadState::Caches::belongs_to(const std::shared_ptr<const TokenCounter>& counter) const noexcept {
  // A counter that owns nothing (use_count 0) lives as long as the process; any other is the one
  // whose control block this entry watches, not a later one at the same address.
  if (process_lifetime) return counter.use_count() == 0;
  return !owner.expired() && !owner.owner_before(counter) && !counter.owner_before(owner);
}

JsThreadState::Caches& JsThreadState::caches_of(const std::shared_ptr<const TokenCounter>& counter) {
  const auto found = caches_.find(counter.get());
  if (found != caches_.end() && found->second.belongs_to(counter)) return found->second;
  // A new counter: first forget the caches of models that are gone.
  for (auto it = caches_.begin(); it != caches_.end();) {
    if (!it->second.process_lifetime && it->second.owner.expired()) {
      it = caches_.erase(it);
    } else {
      ++it;
    }
  }
  Caches& entry = caches_[counter.get()];
  entry = Caches{};
  entry.process_lifetime = counter.use_count() == 0;
  if (!entry.process_lifetime) entry.owner = counter;
  return entry;
}

CountCache& JsThreadState::cache_for(const std::shared_ptr<const TokenCounter>& counter) {
  Caches& entry = caches_of(counter);
  if (!entry.cache) entry.cache = counter->new_cache();
  return *entry.cache;
}

std::unique_ptr<CountCache> JsThreadState::lend(const std::shared_ptr<const TokenCounter>& counter) {
  Caches& entry = caches_of(counter);
  if (entry.spares.empty()) return counter->new_cache();
  std::unique_ptr<CountCache> cache = std::move(entry.spares.back());
  entry.spares.pop_back();
  return cache;
}

void JsThreadState::give_back(const TokenCounter& counter, std::unique_ptr<CountCache> cache, unsigned generation) {
  if (!cache || generation != generation_) return;  // lent before clear_caches(): let it go
  // The job still holds `counter`, so an entry at its address is its own.
  const auto found = caches_.find(&counter);
  if (found == caches_.end()) return;
  if (found->second.spares.size() < kSpareCaches) found->second.spares.push_back(std::move(cache));
}

void JsThreadState::clear_caches_of(const TokenCounter& counter) {
  const auto found = caches_.find(&counter);
  if (found == caches_.end()) return;
  if (found->second.cache) found->second.cache->clear();  // in place: Counter objects keep pointing at it
  found->second.spares.clear();
}

void JsThreadState::clear_caches() {
  caches_.clear();  // recreated empty on next use; no call is counting now (this is that thread)
  ++generation_;
  release_buffers();
}

void JsThreadState::release_buffers() {
  std::u16string().swap(utf16_);
  std::string().swap(utf8_);
}

}  // namespace ctxwin::binding
