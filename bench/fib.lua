-- fib.lua -- bench/fib.mini in Lua 5.4: lua5.4 bench/fib.lua 30
-- Prints `fib(30) = 832040` and `Time: <microseconds> us` (os.clock, CPU time
-- of this single-threaded process, around the call only).
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
local n = tonumber(arg[1] or "30")
local t0 = os.clock()
local r = fib(n)
local t1 = os.clock()
print(string.format("fib(%d) = %d", n, r))
print(string.format("Time: %d us", math.floor((t1 - t0) * 1e6 + 0.5)))
