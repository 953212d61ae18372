// Text -> the marked stream the Claude vocabularies are tiled over. Internal to the core.
//
// Every rule here is either Claude's text normalization or a measured fact about how its
// tokenizer splits text (ctok's measurements, each pinned by a count_tokens probe); the reasons
// are given where the rules are written down: char_info.cpp (what each character is),
// text_normalization.cpp (what the text becomes first) and marked_stream.cpp (the stream's rules).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tokenizer/claude/text_normalization.hpp"

namespace ctxwin::claude {

struct StreamOptions {
  bool fold_quotes;           // v3 folds curly quotes to straight ones
  std::uint32_t allcaps_min;  // 0: no ⟨caps⟩ marker (v4.7 and later)
  bool frame_bow;             // the frame ends in ⟨bow⟩ and absorbs one leading space
  bool free_tail;             // trailing ASCII whitespace is free (else the newline ladder)
};

struct MarkedStream {
  std::string bytes;          // UTF-8 with the marker bytes of vocabulary.hpp
  std::size_t tail_newlines;  // content-final newlines the ladder prices (0 on a free tail)
};

// `text` must be valid UTF-8. Memory: the stream, and a normalized copy of the text only when
// normalization changes it (NFC reads pieces of `normalization_chunk_bytes`: text_normalization.hpp).
MarkedStream build_marked_stream(std::string_view text, const StreamOptions& options,
                                 std::size_t normalization_chunk_bytes = kNormalizationChunkBytes);

}  // namespace ctxwin::claude
