-- The mixed workload of make bench's API figures (bench/api.mjs), a wrk script. Every request is one the
-- web UI makes, and every one is expected to succeed (2xx): wrk counts any other status as an error.
--
-- Each thread repeats a cycle of ten requests: the app list twice, an app three times, an edit of an app
-- twice, the organization with its members twice, and a publish. The first organization has the apps that
-- are listed, read and edited; the second has a pool of apps in DEVELOPMENT that are published, each once:
-- thread i of n publishes the pool's apps i, i + n, i + 2n, ... and, once its share is used up, reads an app
-- in place of publishing (an app can be submitted for review only once, so a repeated publish would be a
-- refused request, not a measured one). done() prints how many apps were published.
--
--   wrk -t N -c C -d D -s bench/api-mixed.lua URL -- TOKEN LIST_ORG APPS PREFIX PUBLISH_ORG POOL POOL_PREFIX N

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

local token, list_org, apps, prefix, publish_org, pool, pool_prefix, thread_count
local step = 0
published = 0
local updates = 0

local function name(base, n)
  return string.format("%s%05d", base, n)
end

function init(args)
  token, list_org, apps, prefix = args[1], args[2], tonumber(args[3]), args[4]
  publish_org, pool, pool_prefix, thread_count = args[5], tonumber(args[6]), args[7], tonumber(args[8])
  if not (token and list_org and apps and prefix and publish_org and pool and pool_prefix and thread_count) then
    error("usage: wrk ... -s api-mixed.lua URL -- TOKEN LIST_ORG APPS PREFIX PUBLISH_ORG POOL POOL_PREFIX THREADS")
  end
  -- Threads start at different apps.
  step = thread_index * 7
end

local function headers(org)
  return { ["Authorization"] = "Bearer " .. token, ["x-org-id"] = org, ["Content-Type"] = "application/json" }
end

local function read_app()
  return wrk.format("GET", "/api/dev/apps/" .. name(prefix, step % apps), headers(list_org))
end

function request()
  step = step + 1
  local slot = step % 10
  if slot == 0 or slot == 5 then
    return wrk.format("GET", "/api/dev/apps", headers(list_org))
  elseif slot == 3 or slot == 7 then
    updates = updates + 1
    local body = string.format('{"description":"Edited by the benchmark, edit %d of thread %d."}', updates, thread_index)
    return wrk.format("PUT", "/api/dev/apps/" .. name(prefix, (step * 13) % apps), headers(list_org), body)
  elseif slot == 4 or slot == 8 then
    return wrk.format("GET", "/api/orgs/" .. list_org, headers(list_org))
  elseif slot == 9 then
    local n = thread_index + thread_count * published
    if n < pool then
      published = published + 1
      return wrk.format("POST", "/api/dev/apps/" .. name(pool_prefix, n) .. "/publish", headers(publish_org))
    end
    return read_app()
  end
  return read_app()
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + (thread:get("published") or 0)
  end
  io.write(string.format("published: %d\n", total))
end
