-- wrk: log in over and over (argon2 verification on every request), one
-- account per thread (run with -t N -c N, N <= 8): several attempts for one
-- email at once would be throttled, as they should be.
local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
end

function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
  wrk.headers["Accept"] = "application/json"
  wrk.body = string.format("email=login%d%%40example.com&password=correct+horse+battery+staple", index)
end
