// How model ids are spelled, and the forms ctxwin compares them in.
//
// One model goes by many ids: its maker's ("claude-3-5-sonnet-20241022"), a cloud's
// ("us.anthropic.claude-3-5-sonnet-20241022-v2:0" on Bedrock, "claude-3-5-sonnet@20241022" on
// Vertex), a router's ("anthropic/claude-3.5-sonnet", "...:free"), a local runtime's
// ("llama3.3:70b", "qwen2.5:7b-instruct-q4_K_M"), in any case and with dots, dashes, underscores or
// spaces. These functions reduce an id to its model names in one canonical spelling, so that the
// catalog's ids and a caller's ids meet: the catalog's entries are indexed by the same functions.
//
//   model_names("us.anthropic.claude-3-5-sonnet-20241022-v2:0")
//       -> {"claude-3-5-sonnet-20241022", "anthropic-claude-3-5-sonnet-20241022"}
//   model_family("claude-3-5-sonnet-20241022") -> "claude-3-5-sonnet"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ctxwin {

// Lower-cased (ASCII), surrounding whitespace removed: the form exact ids are compared in.
std::string fold_model_id(std::string_view id);

// The canonical spelling of a model name: lower case; a '.' between digits and every other
// character that is not a letter or digit becomes '-'; a word of three or more letters followed
// by a number is split ("llama3" -> "llama-3", "gpt4o" -> "gpt-4o"; "o3", "v3", "a22b" stay);
// no leading, trailing or doubled '-'. Idempotent.
std::string canonical_model_name(std::string_view text);

// The canonical names `id` stands for once its provider's packaging is removed: a path
// ("openrouter/anthropic/..."), OpenAI's "ft:" fine-tunes, a Vertex "@version" (a date is kept as
// "-date"), a router's ":free" / ":beta" tag, an Ollama ":tag" (kept as "-tag" without its
// quantization: ":70b-instruct-q4_K_M" -> "-70b-instruct"), a Bedrock region ("us.", "global.")
// and version (":0" with its "-v1"). A Bedrock vendor prefix ("anthropic.", "meta.") gives two
// names: without it and joined with '-' ("deepseek.r1" -> "r1", "deepseek-r1"). Empty for an id
// with no name left.
std::vector<std::string> model_names(std::string_view id);

// The length of a Bedrock-style vendor prefix of `folded` with its '.' ("anthropic.", "meta.",
// "ai21."), or 0: a word of letters (and digits after the first) then '.' then a letter, so that
// "gpt-4.1" and "qwen2.5" have none.
std::size_t vendor_prefix_length(std::string_view folded);

// `folded` without a Bedrock cross-region prefix ("us.", "eu.", "apac.", "global.", ...).
std::string_view without_bedrock_region(std::string_view folded);

// Whether `id` is a router's tier or mode of a model it also lists on its own ("...:free",
// "...:thinking"): such entries often have other limits, so they answer only to their exact id.
bool is_router_tier(std::string_view id);

// A canonical name without its trailing dates, revision numbers and "latest"
// ("gpt-4o-2024-08-06" -> "gpt-4o", "gpt-4-0613" -> "gpt-4", "gemini-2-5-flash-preview-05-20"
// -> "gemini-2-5-flash-preview", "claude-3-5-sonnet-latest" -> "claude-3-5-sonnet"). A version
// number is never removed: "claude-opus-4-7-20260101" -> "claude-opus-4-7".
std::string model_family(std::string_view name);

// An open-weight model's name without its chat-tuning suffix ("-instruct", "-it", "-chat"), or
// the name itself when it has none.
std::string model_base(std::string_view name);

// Whether `rest` ("-tts", "-70b-chat"), the part of an id after a known model name, makes the id
// a variant of that model: it goes on with a word, a parameter size or a date, not with a version
// number ("-1", "-4-7", "-v2"), a context size ("-32k") or a word that names a sibling model
// ("-mini", "-lite", "-pro", ...). With `size_or_tuning_only`, only a
// parameter size or a chat-tuning word counts (for aliases: "llama2:70b" but not "mistral-large").
bool is_variant_rest(std::string_view rest, bool size_or_tuning_only);

}  // namespace ctxwin
