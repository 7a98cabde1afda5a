-- wrk: every request from another address, sent as the one proxy in front would.
-- The requests are made once, when each thread starts, and sent in turn: built
-- per request (a table of headers, three random numbers, wrk.format) they cost
-- wrk enough of the machine's two cores to lower the server's rate by itself.
local requests, count, sent = {}, 16384, 0

init = function(args)
  -- Each thread its own addresses (LuaJIT starts every thread's state alike).
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 1000003)
  for i = 1, count do
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["X-Forwarded-For"] = "10." .. math.random(0, 255) .. "." .. math.random(0, 255)
      .. "." .. math.random(1, 254)
    requests[i] = wrk.format(nil, nil, headers)
  end
end

request = function()
  sent = sent % count + 1
  return requests[sent]
end
