// Truncation strategies: plan in the core over message metadata, hand back the caller's own
// message objects, untouched and in order.
import { describe, rangeError, requireCount, typeError } from "../runtime/errors.js";
import { describeMessages } from "./message-metadata.js";
import { native, type NativeStrategySpec } from "../runtime/native.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { MessageLike } from "../messages/types.js";
import { checkRole, type InsertedRole } from "../messages/roles.js";
import { omissionMarker, type OmissionMarker } from "../messages/omission-marker.js";
import { ROLE_CODES, ROLE_NAMES, type KnownRole } from "../messages/roles.js";

/** Options every strategy takes. */
export interface TruncationOptions {
  /** Keep system messages (default true). */
  preserveSystem?: boolean;
  /** `"user"`: the kept conversation opens on a user message, as most providers require. */
  startOn?: "user" | "any";
  /** Never drop the most recent user message (default true): it is the request being answered. */
  keepLastUser?: boolean;
  /**
   * Never drop the newest exchange (the last message, system messages aside, with its tool unit:
   * the calls the model just made and the results it is about to read) while it fits the target
   * with the pinned messages (default true).
   */
  keepNewestExchange?: boolean;
  /** A tool result without its call: report it (`"error"`, default) or drop it (`"drop"`). */
  orphanToolResults?: "error" | "drop";
  /** Messages pinned through the API: kept like system messages. */
  pinned?: ReadonlySet<object>;
}

export interface TruncationPlan<M> {
  kept: M[];
  removed: M[];
  keptIndices: number[];
  removedIndices: number[];
  /** Tokens of the kept messages (and marker), structure overheads included, reply priming not. */
  keptTokens: number;
  fits: boolean;
  /** Set when the result cannot honour everything (pinned messages alone exceed the target, ...). */
  warning?: string;
  /** Where the omission marker goes: before kept[index]. */
  marker?: { index: number; omitted: number; message: OmissionMarker };
}

export interface TruncationStrategy {
  readonly name: string;
  /** What would be kept and removed, without applying it. */
  plan<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): TruncationPlan<M>;
  /** The kept messages, in order (with an omission marker where a strategy adds one). */
  truncate<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): Array<M | OmissionMarker>;
}

/** A history whose per-message metadata is already read: the messages and, beside each, its role, tokens, flags and tool unit. */
export interface MessageColumns<M extends MessageLike = MessageLike> {
  readonly messages: readonly M[];
  readonly roles: ColumnValues;
  readonly tokens: ColumnValues;
  readonly flags: ColumnValues;
  readonly units: ColumnValues;
}

/** One number per message: an array, or a typed array (a managed history keeps its columns typed). */
export type ColumnValues = ArrayLike<number> & { indexOf(value: number, fromIndex?: number): number };

/** What a trim keeps: the indices, in order, and where the omission marker goes (-1: none). */
export interface KeptPlan {
  indices: number[];
  markerIndex: number;
  /** The tokens the marker may take within the target: what was reserved for it and what the kept messages leave below the target. */
  markerTokens?: number | undefined;
  /** The kept messages' tokens, the marker's included (when the planner says). */
  tokens?: number;
  /**
   * Tokens by which the pinned messages and the newest exchange exceed the request's limit, when
   * the exchange was dropped for that (0 otherwise): what cutting its results must free.
   */
  newestExchangeExcess?: number;
}

/** The marker role of the first smart strategy in a chain ("system" when there is none). */
export function markerRoleOf(strategies: readonly TruncationStrategy[]): InsertedRole {
  for (const s of strategies) {
    if (s instanceof SmartTruncationStrategy) return s.markerRole;
    if (s instanceof CompositeStrategy) return markerRoleOf(s.strategies);
  }
  return "system";
}

/**
 * The built-in strategies `strategy` consists of (itself, or a composite's members), or undefined
 * when a custom strategy is among them: then the chain cannot be planned in one core call.
 */
export function coreChain(strategy: TruncationStrategy): CoreStrategy[] | undefined {
  if (strategy instanceof CoreStrategy) return [strategy];
  if (strategy instanceof CompositeStrategy && strategy.strategies.every((s) => s instanceof CoreStrategy)) {
    return strategy.strategies as CoreStrategy[];
  }
  return undefined;
}

function checkTarget(target: unknown): number {
  return requireCount(target, "targetTokens");
}

function checkCounter(counter: unknown): TokenCounter {
  const c = counter as Partial<TokenCounter> | null;
  if (!c || typeof c.count !== "function" || typeof c.countMessages !== "function") {
    throw typeError(`counter must be a TokenCounter, got ${describe(counter)}`);
  }
  return counter as TokenCounter;
}

function commonSpec(options: TruncationOptions): Omit<NativeStrategySpec, "kind"> {
  if (options.startOn !== undefined && options.startOn !== "user" && options.startOn !== "any") {
    throw rangeError(`options.startOn must be "user" or "any", got ${describe(options.startOn)}`);
  }
  return {
    preserveSystem: options.preserveSystem ?? true,
    startOnUser: options.startOn === "user",
    keepLastUser: options.keepLastUser ?? true,
    keepNewestExchange: options.keepNewestExchange ?? true,
  };
}

/** Strategies whose plan the core computes; a composite of them plans in one call. */
export abstract class CoreStrategy implements TruncationStrategy {
  abstract readonly name: string;
  protected constructor(readonly options: TruncationOptions) {
    if (options === null || typeof options !== "object") throw typeError(`options must be an object, got ${describe(options)}`);
  }

  /** The core's description of this strategy for `messages` (markerTokens needs the counter). */
  abstract spec(messages: readonly MessageLike[], counter: TokenCounter): NativeStrategySpec;

  plan<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): TruncationPlan<M> {
    return planWith([this], this.options, messages, targetTokens, counter);
  }

  truncate<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): Array<M | OmissionMarker> {
    return apply(this.plan(messages, targetTokens, counter));
  }
}

function apply<M>(plan: TruncationPlan<M>): Array<M | OmissionMarker> {
  const out: Array<M | OmissionMarker> = plan.kept.slice();
  if (plan.marker) out.splice(plan.marker.index, 0, plan.marker.message);
  return out;
}

function markerTokens(messages: readonly MessageLike[], counter: TokenCounter): number {
  // Priced at its longest possible text, so the result never exceeds the target.
  const probe = omissionMarker(messages.length, "assistant"); // the role's own tokens: 1 either way
  return Math.max(0, counter.countMessages([probe]) - counter.countMessages([]));
}

function planWith<M extends MessageLike>(
  strategies: readonly CoreStrategy[],
  options: TruncationOptions,
  messages: readonly M[],
  targetTokens: number,
  counter: TokenCounter,
): TruncationPlan<M> {
  const target = checkTarget(targetTokens);
  checkCounter(counter);
  const meta = describeMessages(messages, counter, { orphanToolResults: options.orphanToolResults, pinned: options.pinned });
  // Orphaned results (when repairing) never reach the planner: they are always removed. The
  // messages planned over are listed only when there are orphans (undefined: all of them).
  const candidates = meta.orphans.length === 0 ? undefined : withoutOrphans(messages.length, meta.orphans);
  const pick = <T extends Uint8Array | Uint32Array | Int32Array>(array: T, make: (n: number) => T): T => {
    if (candidates === undefined) return array;
    const out = make(candidates.length);
    candidates.forEach((i, k) => (out[k] = array[i] as number));
    return out;
  };
  const specs = strategies.map((s) => s.spec(messages, counter));
  const result = native.planTruncation(
    pick(meta.roles, (n) => new Uint8Array(n)),
    pick(meta.tokens, (n) => new Uint32Array(n)),
    pick(meta.flags, (n) => new Uint8Array(n)),
    pick(meta.units, (n) => new Int32Array(n)),
    target,
    specs,
  );
  // Indices back in the caller's numbering (orphans, when dropped, were never candidates).
  const keptIndices = callerIndices(result.kept, candidates);
  const removedIndices =
    candidates === undefined ? callerIndices(result.removed) : mergeSorted(callerIndices(result.removed, candidates), meta.orphans);
  const plan: TruncationPlan<M> = {
    kept: pickMessages(messages, keptIndices),
    removed: pickMessages(messages, removedIndices),
    keptIndices,
    removedIndices,
    keptTokens: result.keptTokens,
    fits: result.fits,
  };
  if (result.warning !== "") plan.warning = result.warning;
  if (result.markerPosition >= 0) {
    const omitted = removedIndices.length;
    plan.marker = { index: result.markerPosition, omitted, message: omissionMarker(omitted, markerRoleOf(strategies)) };
  }
  return plan;
}

/** The indices 0 to n - 1 less `orphans`. */
function withoutOrphans(n: number, orphans: readonly number[]): number[] {
  const orphan = new Set(orphans);
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (!orphan.has(i)) out.push(i);
  return out;
}

/**
 * A plan's indices as an array, in the caller's numbering when `candidates` (the messages planned
 * over, orphans left out) is given. A loop, not Array.from: V8 copies a typed array through its
 * iterator there, a third of a plan of 4,000 caller messages outside the core.
 */
function callerIndices(planned: ArrayLike<number>, candidates?: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < planned.length; k++) {
    const index = planned[k] as number;
    out.push(candidates === undefined ? index : (candidates[index] as number));
  }
  return out;
}

/** The messages at `indices`. */
function pickMessages<M>(messages: readonly M[], indices: readonly number[]): M[] {
  const out: M[] = [];
  for (const i of indices) out.push(messages[i] as M);
  return out;
}

function mergeSorted(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length)
    out.push(j >= b.length || (i < a.length && (a[i] as number) < (b[j] as number)) ? (a[i++] as number) : (b[j++] as number));
  return out;
}

/** Keeps the most recent `windowSize` non-system messages, then fits the target. */
export class SlidingWindowStrategy extends CoreStrategy {
  readonly name = "sliding_window";
  readonly windowSize: number;
  constructor(options: TruncationOptions & { windowSize?: number } = {}) {
    super(options);
    this.windowSize = requireCount(options.windowSize ?? 20, "options.windowSize");
  }
  spec(): NativeStrategySpec {
    return { kind: 0, windowSize: this.windowSize, ...commonSpec(this.options) };
  }
}

/** Removes the oldest messages first until the rest fits. */
export class TokenBudgetStrategy extends CoreStrategy {
  readonly name = "token_budget";
  constructor(options: TruncationOptions = {}) {
    super(options);
  }
  spec(): NativeStrategySpec {
    return { kind: 1, ...commonSpec(this.options) };
  }
}

/**
 * Keeps the first and last messages, drops the middle, and marks the gap "[N messages omitted]"
 * (a system message unless `markerRole` says otherwise: Anthropic's API, for one, takes system
 * text only outside the messages). `dropMiddle: "as-needed"` drops the middle oldest first only
 * until the target (the first messages still kept, the gap still marked), not whole.
 */
export class SmartTruncationStrategy extends CoreStrategy {
  readonly name = "smart";
  readonly preserveFirst: number;
  readonly preserveLast: number;
  readonly markerRole: InsertedRole;
  readonly dropMiddle: "all" | "as-needed";
  constructor(
    options: TruncationOptions & {
      preserveFirst?: number;
      preserveLast?: number;
      markerRole?: InsertedRole;
      dropMiddle?: "all" | "as-needed";
    } = {},
  ) {
    super(options);
    this.markerRole = checkRole(options.markerRole ?? "system", "options.markerRole");
    this.preserveFirst = requireCount(options.preserveFirst ?? 2, "options.preserveFirst");
    this.preserveLast = requireCount(options.preserveLast ?? 10, "options.preserveLast");
    const dropMiddle = options.dropMiddle ?? "all";
    if (dropMiddle !== "all" && dropMiddle !== "as-needed")
      throw rangeError(`options.dropMiddle must be "all" or "as-needed", got ${describe(dropMiddle)}`);
    this.dropMiddle = dropMiddle;
  }
  spec(messages: readonly MessageLike[], counter: TokenCounter): NativeStrategySpec {
    return {
      kind: 2,
      preserveFirst: this.preserveFirst,
      preserveLast: this.preserveLast,
      markerTokens: markerTokens(messages, counter),
      dropMiddleAsNeeded: this.dropMiddle === "as-needed",
      ...commonSpec(this.options),
    };
  }
}

/** Keeps messages of the preserved roles and marked messages; drops tool results first. */
export class SelectiveTruncationStrategy extends CoreStrategy {
  readonly name = "selective";
  readonly preserveRoles: readonly KnownRole[];
  readonly preserveMarked: boolean;
  readonly dropToolResultsFirst: boolean;
  constructor(
    options: TruncationOptions & { preserveRoles?: readonly string[]; preserveMarked?: boolean; dropToolResultsFirst?: boolean } = {},
  ) {
    super(options);
    const roles = options.preserveRoles ?? ["system", "user"];
    if (!Array.isArray(roles)) throw typeError(`options.preserveRoles must be an array of roles, got ${describe(roles)}`);
    for (const role of roles) {
      if (!(ROLE_NAMES as string[]).includes(role))
        throw rangeError(`options.preserveRoles: unknown role ${describe(role)}; roles are ${ROLE_NAMES.join(", ")}`);
    }
    this.preserveRoles = roles as KnownRole[];
    this.preserveMarked = options.preserveMarked ?? true;
    this.dropToolResultsFirst = options.dropToolResultsFirst ?? true;
  }
  spec(): NativeStrategySpec {
    let mask = 0;
    for (const role of this.preserveRoles) mask |= 1 << ROLE_CODES[role];
    return {
      kind: 3,
      preserveRoles: mask,
      preserveMarked: this.preserveMarked,
      dropToolResultsFirst: this.dropToolResultsFirst,
      ...commonSpec(this.options),
    };
  }
}

/** Applies strategies in order, each to what the previous kept, stopping as soon as it fits. */
export class CompositeStrategy implements TruncationStrategy {
  readonly name = "composite";
  readonly strategies: readonly TruncationStrategy[];
  constructor(
    strategies: readonly TruncationStrategy[],
    readonly options: TruncationOptions = {},
  ) {
    if (!Array.isArray(strategies) || strategies.length === 0) throw typeError("strategies must be a non-empty array of strategies");
    strategies.forEach((s, i) => {
      if (!s || typeof (s as TruncationStrategy).plan !== "function")
        throw typeError(`strategies[${i}] must be a TruncationStrategy, got ${describe(s)}`);
    });
    this.strategies = strategies;
  }

  plan<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): TruncationPlan<M> {
    // All built in: one call into the core plans the whole chain.
    const chain = coreChain(this);
    if (chain) return planWith(chain, this.options, messages, targetTokens, counter);
    // Otherwise each strategy plans on what the previous one kept.
    checkTarget(targetTokens);
    let current: Array<{ message: M; index: number }> = messages.map((message, index) => ({ message, index }));
    let last: TruncationPlan<M> | undefined;
    for (const strategy of this.strategies) {
      const step = strategy.plan(
        current.map((c) => c.message),
        targetTokens,
        counter,
      );
      current = step.keptIndices.map((k) => current[k] as { message: M; index: number });
      last = step;
      if (step.fits) break;
    }
    const step = last as TruncationPlan<M>;
    const keptIndices = current.map((c) => c.index);
    const keptSet = new Set(keptIndices);
    const removedIndices = messages.map((_, i) => i).filter((i) => !keptSet.has(i));
    const plan: TruncationPlan<M> = {
      kept: current.map((c) => c.message),
      removed: removedIndices.map((i) => messages[i] as M),
      keptIndices,
      removedIndices,
      keptTokens: step.keptTokens,
      fits: step.fits,
    };
    if (step.warning !== undefined) plan.warning = step.warning;
    if (step.marker)
      plan.marker = {
        ...step.marker,
        omitted: removedIndices.length,
        message: omissionMarker(removedIndices.length, step.marker.message.role),
      };
    return plan;
  }

  truncate<M extends MessageLike>(messages: readonly M[], targetTokens: number, counter: TokenCounter): Array<M | OmissionMarker> {
    return apply(this.plan(messages, targetTokens, counter));
  }
}
