// Claude's text normalization, before the marked stream is built: NFC; C0/C1 controls but TAB and
// LF removed, NUL read as a space; decomposed Thai SARA AM composed; BMP private use removed; on v3
// the four curly quotes folded; the other space separators read as U+0020. Internal to the core.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tokenizer/claude/char_info.hpp"

namespace ctxwin::claude {

// NFC runs over pieces of about this many bytes (see normalize).
inline constexpr std::size_t kNormalizationChunkBytes = std::size_t{64} << 10;

// The normalized text of valid UTF-8 `text`: `text` itself when normalization leaves it as it is
// (the usual case: nothing is copied), else a view of `storage`, which holds it. It costs at most
// the text's size in `storage` plus a buffer for one piece of `chunk_bytes` (tests pass small
// sizes to cross many piece boundaries).
std::string_view normalize(std::string_view text, bool fold_quotes, const Infos& info, std::string& storage,
                           std::size_t chunk_bytes = kNormalizationChunkBytes);

}  // namespace ctxwin::claude
