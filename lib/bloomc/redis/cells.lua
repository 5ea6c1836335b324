local function each_nonzero_cell(key, w, a, b, fn)
  local first = math.floor(a * w / 8)
  local s = redis.call('GETRANGE', key, first, math.floor((b * w - 1) / 8))
  local last, j = -1, 1
  while true do
    j = string.find(s, '[^%z]', j)
    if not j then return end
    local byte, base = string.byte(s, j), (first + j - 1) * 8
    for p = 0, 7 do
      if bit.band(byte, bit.rshift(128, p)) ~= 0 then
        local cell = math.floor((base + p) / w)
        if cell ~= last and cell >= a and cell < b then
          fn(cell)
          last = cell
        end
      end
    end
    j = j + 1
  end
end
