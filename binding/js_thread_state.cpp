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

PieceCache& JsThreadState::cache_for(const Encoding& encoding) {
  std::unique_ptr<PieceCache>& cache = caches_[&encoding];
  if (!cache) cache = std::make_unique<PieceCache>();
  return *cache;
}

std::unique_ptr<PieceCache> JsThreadState::lend(const Encoding& encoding) {
  std::vector<std::unique_ptr<PieceCache>>& spares = spares_[&encoding];
  if (spares.empty()) return std::make_unique<PieceCache>();
  std::unique_ptr<PieceCache> cache = std::move(spares.back());
  spares.pop_back();
  return cache;
}

void JsThreadState::give_back(const Encoding& encoding, std::unique_ptr<PieceCache> cache, unsigned generation) {
  if (!cache || generation != generation_) return;  // lent before clear_caches(): let it go
  std::vector<std::unique_ptr<PieceCache>>& spares = spares_[&encoding];
  if (spares.size() < kSpareCaches) spares.push_back(std::move(cache));
}

claude::SegmentCache& JsThreadState::claude_cache_for(const claude::ClaudeTokenizer& family) {
  auto& slot = claude_caches_[&family];
  if (!slot) slot = std::make_unique<claude::SegmentCache>(kClaudeCacheBytes);
  return *slot;
}

void JsThreadState::clear_caches() {
  claude_caches_.clear();
  caches_.clear();  // recreated empty on next use; no call is counting now (this is that thread)
  spares_.clear();
  ++generation_;
  release_buffers();
}

void JsThreadState::release_buffers() {
  std::u16string().swap(utf16_);
  std::string().swap(utf8_);
}

}  // namespace ctxwin::binding
