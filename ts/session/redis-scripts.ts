// The Lua scripts of RedisSessionStore. Each write is one script, so it is atomic: it checks
// everything first (its arguments, the append id, the log's identity and version, the log's size)
// and only then writes, so that it lands whole or not at all. `#!lua` declares it to Redis 7 as a
// script that writes: a server out of memory refuses it before it starts, not half-way.
import { createHash } from "node:crypto";
import { MAX_APPEND_BYTES, MAX_APPEND_ID_BYTES } from "./store.js";

/** The largest ttl the scripts accept, in ms (1e9 seconds, about 31 years). */
export const MAX_TTL_MS = 1e12;

// KEYS: log, meta, index, applied.
// ARGV: expected version ('' none), ttl ms ('0' none), session id, metadata JSON ('' none),
// append id ('' none), expected log id ('' none), new log id, max log bytes, snapshot index in
// the batch (-1 none), then the entries' JSON.
// Replies: {1, version, first, time, log} appended; {2, "first version time", log} applied before;
// {0, version, log} conflict; {3, version, log} lost (gone, replaced, or behind); {4, bytes} too large.
const APPEND = `#!lua
local function whole(s, low, high)
  local n = tonumber(s)
  if n == nil or n ~= n or n < low or n > high or n % 1 ~= 0 then return nil end
  return n
end
local ttl = whole(ARGV[2], 0, ${MAX_TTL_MS})
if ttl == nil then return redis.error_reply('ERR ctxwin: ttl must be a whole number of ms in [0, ${MAX_TTL_MS}]') end
local expected = nil
if ARGV[1] ~= '' then
  expected = whole(ARGV[1], 0, 9007199254740991)
  if expected == nil then return redis.error_reply('ERR ctxwin: expected version must be a whole number >= 0') end
end
local maxBytes = whole(ARGV[8], 1, 9007199254740991)
local snapAt = whole(ARGV[9], -1, 9007199254740991)
if maxBytes == nil or snapAt == nil then return redis.error_reply('ERR ctxwin: bad size arguments') end
if #ARGV[5] > ${MAX_APPEND_ID_BYTES} or #ARGV[6] > ${MAX_APPEND_ID_BYTES} or #ARGV[7] == 0 then return redis.error_reply('ERR ctxwin: bad ids') end
local n = #ARGV - 9
local size = 0
for i = 10, #ARGV do size = size + #ARGV[i] end
if size > ${MAX_APPEND_BYTES} then return redis.error_reply('ERR ctxwin: the append is larger than ${MAX_APPEND_BYTES} bytes') end
if snapAt >= n then return redis.error_reply('ERR ctxwin: snapshot index out of the batch') end

local meta = redis.call('HMGET', KEYS[2], 'version', 'log', 'created', 'bytes')
local version = tonumber(meta[1] or '0')
local log = meta[2]
if not log and version > 0 then log = 'legacy-' .. (meta[3] or '0') end
if ARGV[5] ~= '' then
  local hit = redis.call('HGET', KEYS[4], ARGV[5])
  if hit then return {2, hit, log or ''} end
end
if ARGV[6] ~= '' and log ~= ARGV[6] then return {3, version, log or ''} end
if expected ~= nil and expected > version then return {3, version, log or ''} end
if expected ~= nil and expected ~= version then return {0, version, log or ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if n == 0 then return {1, version, version, now, log or ''} end
local stamp = string.format('%d', now)
local records = {}
local bytes = tonumber(meta[4] or '0')
for i = 1, n do
  records[i] = '{"seq":' .. string.format('%d', version + i - 1) .. ',"time":' .. stamp .. ',"entry":' .. ARGV[i + 9] .. '}'
  bytes = bytes + #records[i]
end
if bytes > maxBytes then return {4, bytes} end

-- Everything is checked: write.
if not log then log = ARGV[7] end
for i = 1, n, 500 do redis.call('RPUSH', KEYS[1], unpack(records, i, math.min(i + 499, n))) end
redis.call('HSET', KEYS[2], 'version', string.format('%d', version + n), 'updated', stamp, 'log', log, 'bytes', string.format('%d', bytes))
redis.call('HSETNX', KEYS[2], 'created', stamp)
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'metadata', ARGV[4]) end
if snapAt >= 0 then redis.call('HSET', KEYS[2], 'snapshot', string.format('%d', version + snapAt)) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[5], string.format('%d %d %d', version, version + n, now)) end
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
  redis.call('ZADD', KEYS[3], string.format('%d', now + ttl), ARGV[3])
else
  redis.call('ZADD', KEYS[3], '+inf', ARGV[3])
end
return {1, version + n, version, now, log}
`;

const DELETE = `#!lua
local existed = redis.call('DEL', KEYS[1], KEYS[2])
redis.call('DEL', KEYS[4])
redis.call('ZREM', KEYS[3], ARGV[1])
return existed
`;

// Expired sessions leave the index here, lazily: their keys are already gone.
const LIST = `#!lua
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', now))
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

export interface Script {
  text: string;
  sha: string;
}

const script = (text: string): Script => ({ text, sha: createHash("sha1").update(text).digest("hex") });

export const SCRIPTS = { APPEND: script(APPEND), DELETE: script(DELETE), LIST: script(LIST) };
