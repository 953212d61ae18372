// A managed history's trim planned over the metadata it already holds (its columns): a built-in
// strategy, or a chain of them, in one call into the core; a strategy of the caller's over the
// messages, its kept indices checked and the newest exchange put back when the request still fits.
import { describe, rangeError, typeError } from "../runtime/errors.js";
import { native } from "../runtime/native.js";
import { pushRange } from "../runtime/push-range.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { MessageLike } from "../messages/types.js";
import { namedMarkerRoom, namedMarkerTokens } from "../messages/omission-marker.js";
import { ROLE_CODES } from "../messages/roles.js";
import { coreChain, type ColumnValues, type KeptPlan, type MessageColumns, type TruncationStrategy } from "./strategies.js";

/** The core takes a request limit of up to 2^32 - 1 tokens. */
const MAX_LIMIT = 0xffffffff;

/**
 * The messages `strategy` keeps of `history` within `target` conversation tokens (undefined for an
 * empty history). Built-in strategies plan in one call into the core over the metadata already
 * there, without a walk over the messages; a custom one plans over the messages. The omission
 * marker is priced as a managed history writes it, naming the ids of what it stands for
 * (namedMarkerTokens of the target). `requestLimit`: the conversation tokens the whole request may
 * hold, when more than the target (a trim aims at its target but keeps the newest exchange while
 * the request fits with it). `replacedMarker`: the tokens of an omission marker already in the
 * request, which a marker this trim places replaces.
 */
export function planKept<M extends MessageLike>(
  strategy: TruncationStrategy,
  history: MessageColumns<M>,
  target: number,
  counter: TokenCounter,
  requestLimit = target,
  replacedMarker = 0,
): KeptPlan | undefined {
  if (history.messages.length === 0) return undefined;
  const chain = coreChain(strategy);
  const limit = Math.min(MAX_LIMIT, Math.max(target, requestLimit));
  if (chain) {
    const named = namedMarkerTokens(target);
    let reserved = 0;
    const plan = native.planTruncation(
      typed(Uint8Array, history.roles),
      typed(Uint32Array, history.tokens),
      typed(Uint8Array, history.flags),
      typed(Int32Array, history.units),
      target,
      chain.map((s) => {
        const spec = { ...s.spec(history.messages, counter), requestLimit: limit };
        if (spec.kind !== 2) return spec;
        reserved = Math.max(reserved, spec.markerTokens ?? 0, named);
        return { ...spec, markerTokens: reserved };
      }),
    );
    // The core counted the marker at `reserved` in keptTokens: what the target leaves it, within its
    // share; or, when the newest exchange kept the plan over its target, what the request's limit
    // leaves it (a bare marker there names nothing the agent could recall), but no more than the
    // removal frees, the marker it replaces included: past its target a trim never makes the
    // request larger (the core placed the marker only if the removal frees its reserved size).
    let markerTokens: number | undefined;
    if (plan.markerPosition >= 0) {
      let room = Math.min(namedMarkerRoom(target), (plan.keptTokens > target ? limit : target) - plan.keptTokens + reserved);
      if (plan.keptTokens > target) room = Math.min(room, plan.removedTokens + replacedMarker);
      markerTokens = Math.max(reserved, room);
    }
    return {
      indices: arrayOf(plan.kept),
      markerIndex: plan.markerPosition,
      markerTokens,
      tokens: plan.keptTokens,
      newestExchangeExcess: plan.newestExchangeExcess,
    };
  }
  const plan = strategy.plan(history.messages, target, counter);
  checkKeptIndices(strategy, plan.keptIndices, history.messages.length);
  return keepNewestExchange(history, { indices: plan.keptIndices, markerIndex: plan.marker?.index ?? -1 }, limit);
}

/** A custom strategy's kept indices: messages' indices, ascending, each once (the manager keeps them in order). */
function checkKeptIndices(strategy: TruncationStrategy, indices: unknown, length: number): void {
  const name = `${strategy.name}.plan()`;
  if (!Array.isArray(indices)) throw typeError(`${name} returned keptIndices ${describe(indices)}, not an array of indices`);
  let previous = -1;
  for (const [k, index] of indices.entries()) {
    if (!Number.isInteger(index) || (index as number) <= previous || (index as number) >= length) {
      throw rangeError(
        `${name} returned keptIndices[${k}] = ${describe(index)}: kept indices must be indices of the ${length} messages, ascending, each once`,
      );
    }
    previous = index as number;
  }
}

/** `values` as the typed array the core takes: a managed history's column as it is, else a copy. */
function typed<T extends Uint8Array | Uint32Array | Int32Array>(
  Type: { new (length: number): T; from(values: ArrayLike<number>): T },
  values: ColumnValues,
): T {
  return values instanceof Type ? values : Type.from(values);
}

/** The indices of a typed array as an array (pushRange: a trim's code is cold). */
function arrayOf(typed: Uint32Array): number[] {
  const out: number[] = [];
  pushRange(out, typed);
  return out;
}

/**
 * The last message of `history`, system messages aside, with the rest of its tool unit (the calls
 * the model just made and the results it is about to read): the exchange the model answers next.
 * With `withToolUnit`, also the newest tool unit when other messages came after it (the command
 * run last and its output, before the agent's note or a framework's correction), which the core
 * keeps too when it fits. Empty for a history of system messages only; ascending.
 */
export function newestExchange(history: Pick<MessageColumns, "roles" | "units">, withToolUnit = false): number[] {
  const { roles, units } = history;
  let last = roles.length - 1;
  while (last >= 0 && roles[last] === ROLE_CODES.system) last--;
  if (last < 0) return [];
  const out = new Set<number>(unitOf(history, last));
  if (withToolUnit) {
    let tool = last;
    while (tool >= 0 && (roles[tool] === ROLE_CODES.system || ((units[tool] ?? -1) < 0 && roles[tool] !== ROLE_CODES.tool))) tool--;
    if (tool >= 0) for (const i of unitOf(history, tool)) out.add(i);
  }
  return [...out].sort((a, b) => a - b);
}

/** The message at `index` with the rest of its tool unit. */
function unitOf(history: Pick<MessageColumns, "units">, index: number): number[] {
  // Read once: a managed history's columns are getters, and this scans all of them.
  const units = history.units;
  const unit = units[index] ?? -1;
  if (unit < 0) return [index];
  // Found by indexOf, the engine's own scan: a trim's code is cold, and a loop over 10,000 units
  // would run unoptimized.
  const out: number[] = [];
  for (let i = units.indexOf(unit); i >= 0; i = units.indexOf(unit, i + 1)) out.push(i);
  return out;
}

/**
 * A custom strategy's plan with the newest exchange put back when the request still fits with it
 * (the core's strategies keep it themselves, dropping older messages first); otherwise by how
 * much it does not.
 */
function keepNewestExchange(history: MessageColumns, plan: KeptPlan, limit: number): KeptPlan {
  const newest = newestExchange(history);
  const kept = new Set(plan.indices);
  const missing = newest.filter((i) => !kept.has(i));
  if (missing.length === 0) return plan;
  let tokens = 0;
  for (const i of plan.indices) tokens += history.tokens[i] ?? 0;
  for (const i of missing) tokens += history.tokens[i] ?? 0;
  if (tokens > limit) return { ...plan, newestExchangeExcess: tokens - limit };
  const indices = [...plan.indices, ...missing].sort((a, b) => a - b);
  // The marker stays before the message it preceded.
  const before = plan.markerIndex >= 0 ? plan.indices[plan.markerIndex] : undefined;
  return { indices, markerIndex: before === undefined ? -1 : indices.indexOf(before) };
}
