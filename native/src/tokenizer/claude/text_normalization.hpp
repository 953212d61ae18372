// Claude's text normalization, before the marked stream is built: NFC; C0/C1 controls but TAB and
// LF removed, NUL read as a space; decomposed Thai SARA AM composed; BMP private use removed; on v3
// the four curly quotes folded; the other space separators read as U+0020. Internal to the core.
#pragma once

#include <string>
#include <string_view>

#include "tokenizer/claude/char_info.hpp"

namespace ctxwin::claude {

// The normalized code points of valid UTF-8 `text`.
std::u32string normalize(std::string_view text, bool fold_quotes, const Infos& info);

}  // namespace ctxwin::claude
