-- wrk: every request from another address, sent as the one proxy in front would.
request = function()
  local headers = {}
  for name, value in pairs(wrk.headers) do headers[name] = value end
  headers["X-Forwarded-For"] = "10." .. math.random(0, 255) .. "." .. math.random(0, 255)
    .. "." .. math.random(1, 254)
  return wrk.format(nil, nil, headers)
end
