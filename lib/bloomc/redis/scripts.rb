# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis"): its Lua scripts, each in
# its own NAME.lua beside this file.

require "digest/sha1"

module Bloomc
  module Redis
    # Cells per script call in the batch forms (8192 / k keys): bounds how
    # long one call holds the server (a few milliseconds).
    CELLS_PER_CALL = 8192

    # Cells per script call where a script goes over a counting filter's
    # cells (fill_ratio, merge!): 32,768 cells, a few milliseconds each.
    CELLS_PER_SCAN = 32_768
    private_constant :CELLS_PER_SCAN

    # NAME.lua's text, read once, at require time. The files hold the
    # scripts byte for byte as they were (time.lua has no final newline), so
    # the SHAs (EVALSHA) stay those of earlier versions.
    lua = ->(name) { File.read(File.join(__dir__, "#{name}.lua"), encoding: Encoding::UTF_8).freeze }

    # The continuous scripts' clock: the period (of ms) the server's TIME is
    # in, and the bitmap key of a period (KEYS[1] is the shard's prefix).
    GENERATION_LUA = lua.call(:generation)
    private_constant :GENERATION_LUA

    # A write script's first step: every key it writes must be a string (or
    # absent), so that a key of another type fails the call before anything
    # changes (Redis does not undo a script's writes when a later one fails).
    STRINGS_LUA = lua.call(:strings)
    private_constant :STRINGS_LUA

    # each_nonzero_cell(key, width, from, to, fn): calls fn with each cell
    # of [from, to) of key's string of +width+-bit cells (BITFIELD's '#i'
    # order) that is not 0, in order. It reads the cells' bytes once
    # (GETRANGE) and skips runs of zero bytes at C speed (string.find), so a
    # sparse filter costs little more than its bytes.
    CELLS_LUA = lua.call(:cells)
    private_constant :CELLS_LUA

    # The scalable filter's layers as the client describes them (ARGV from
    # ARGV[first]: how many, then per layer its k, capacity and k bit
    # offsets), their keys (KEYS[3] is the prefix) and whether one holds the
    # key.
    SCALABLE_LUA = lua.call(:scalable_layers)
    private_constant :SCALABLE_LUA

    # The sliding filter's table and layers (sliding_bloom_filter.rb):
    # the server's clock in ms, the generations stored (KEYS[1]) and those
    # alive, those the client describes (ARGV from ARGV[at]), whether the
    # client knows every live one, the table as an answer, and whether a
    # generation's layers hold the key (KEYS[2] is the bitmaps' prefix).
    SLIDING_LUA = lua.call(:sliding_gens)
    private_constant :SLIDING_LUA

    # A script that calls shared functions (generation.lua, strings.lua) is
    # sent as their text, each followed by a blank line, then its own file:
    # Redis runs one source per script, with no include of its own.
    with = ->(name, *shared) { shared.map { |text| "#{text}\n" }.push(lua.call(name)).join }

    # Lua scripts, loaded on first use (EVALSHA; loaded again after a server
    # restart or SCRIPT FLUSH). ARGV[1] is k; cells follow, k per key.
    # The add scripts answer, for each key in order, 1 if it was new (some
    # cell changed; a counter's minimum was 0; not live in any generation)
    # and 0 if it was probably there: add ignores it, add? and add_new
    # return it. A key given twice in one call is new at most once, as the
    # second sees the first's cells. KEYS[2] counts the keys added (size),
    # and for BloomFilter and CountingBloomFilter KEYS[3] those that were
    # new (less those a delete took to 0), for over_capacity?.
    SCRIPTS = {
      # The cells, then the count: a server out of memory refuses the first
      # write. SETBIT answers the bit it replaced.
      bits_add: with.call(:bits_add, STRINGS_LUA),
      bits_lookup: lua.call(:bits_lookup),
      # ARGV[2]: the cell type (u4); saturating, as the local counters. The
      # key was new when one of its cells was 0: an increment that answers
      # 1 (a cell probed twice answers its first increment's 1 first). A
      # cell of one bit saturates at 1: u1 sets it, and SET answers the old
      # value.
      counting_add: with.call(:counting_add, STRINGS_LUA),
      counting_count: lua.call(:counting_count),
      # ARGV[3]: the cell maximum. A key counted (minimum above 0) loses one
      # from each cell that is neither 0 nor saturated, as locally; when
      # that takes its count (the least of its cells after) to 0, it is no
      # longer one of the keys new to the filter. A cell probed twice is
      # read again after its first decrement, so the least of the values
      # after is the count after.
      counting_delete: with.call(:counting_delete, STRINGS_LUA),
      # The clock is the server's: generation G covers [G, G + 1) periods of
      # ARGV[2] ms. A key lives in the bitmap of the generation it was added
      # in and is found while that is one of the last three (at least ttl,
      # two periods; at most 1.5 ttl). A bitmap expires when the third
      # period after its own begins, when no lookup reads it any more, so no
      # stale cell comes back and nothing needs sweeping.
      #
      # A key was live when each of its cells is set in one of those three
      # bitmaps: SETBIT on the current one answers the cell there; the older
      # two are read only for a cell it did not have, and only until one
      # cell is found in none of them.
      continuous_add: with.call(:continuous_add, GENERATION_LUA, STRINGS_LUA),
      continuous_lookup: with.call(:continuous_lookup, GENERATION_LUA),
      # The bits set in any live generation (KEYS[2]: a scratch key of the
      # shard's, written and deleted within the call), for the estimate of
      # the live keys.
      continuous_live_bits: with.call(:continuous_live_bits, GENERATION_LUA),
      continuous_clear: with.call(:continuous_clear, GENERATION_LUA),
      # Set operations between two filters of one shape, shard by shard (the
      # two shards in one hash slot), on the server: the result goes to the
      # first filter's keys, its size becomes the sum (union) or the lesser
      # (intersection) of the sizes, as locally. ARGV holds the operation.
      # Bits: BITOP OR / AND.
      bits_combine: with.call(:bits_combine, STRINGS_LUA),
      # Counters, over cells [ARGV[3], ARGV[4]) of ARGV[1] bits: each cell of
      # the second that is not 0 added to the first's, saturating (union);
      # each cell of the first that is not 0 lowered to the second's where
      # that is less (intersection). The caller sends a range per call
      # (CELLS_PER_SCAN) and combines the counts once (counts_combine).
      counting_combine: with.call(:counting_combine, STRINGS_LUA, CELLS_LUA),
      counts_combine: with.call(:counts_combine, STRINGS_LUA),
      # The live generations (the last three periods, and the next one
      # from_local may have written): union ORs each generation's bitmap
      # into the first filter's, so a cell keeps its younger age; the
      # intersection keeps a cell live where both have it, at the older of
      # its two ages: a cell is live at age <= j in the result when it is in
      # both filters' generations 0..j (cumulative ORs, then AND), and its
      # bitmap is that set less the one for age j - 1 (XOR; deleted when no
      # bit is left), in scratch keys of the first shard's, deleted within
      # the call.
      continuous_combine: with.call(:continuous_combine, GENERATION_LUA, STRINGS_LUA),
      # The scalable filter (KEYS: its layer count, its size, its layers'
      # prefix): a key held by a layer is not added again; else it goes into
      # the newest layer, or, when that has taken its capacity, into the
      # next, which the same call starts (the layer count goes up), so a
      # layer is added once however many writers race. A call told of fewer
      # layers than there are answers {-1, layers} and writes nothing, and
      # the client sends it again; else {1 new / 0 present, layers}.
      scalable_add: with.call(:scalable_add, STRINGS_LUA, SCALABLE_LUA),
      scalable_lookup: with.call(:scalable_lookup, SCALABLE_LUA),
      scalable_clear: with.call(:scalable_clear, SCALABLE_LUA),
      # The sliding filter (KEYS: its table, its bitmaps' prefix; ARGV: ttl
      # and window in ms, generations, first_size, then the generations the
      # client knows of, described for one key). Generations that ended
      # (ttl + window since their start, on the server's TIME) are dropped
      # from the table; when the newest's window has passed (or none is
      # alive) the call starts one, its first layer sized by the keys the
      # newest took (bf_sliding_predicted), and answers with the table. A
      # call told of fewer generations or layers than are alive answers
      # {-1, now, table} and writes nothing of its key, and the client sends
      # it again; else {1 new / 0 present, now, layers of the newest}.
      sliding_add: with.call(:sliding_add, STRINGS_LUA, SLIDING_LUA),
      sliding_lookup: with.call(:sliding_lookup, SLIDING_LUA),
      sliding_table: with.call(:sliding_table, SLIDING_LUA),
      sliding_clear: with.call(:sliding_clear, SLIDING_LUA),
      # A union of two scalable filters into a third (KEYS: each one's layer
      # count, size and layers' prefix; the third may be the first), as
      # Bloomc::ScalableBloomFilter#merge!: layer j is the OR of both layers
      # j, its count their estimate held between the larger of the two
      # counts and their sum; a layer only one has is taken as it is; the
      # size is the sum. ARGV: each possible layer's m and k. One call, so
      # that an add never sees a part of it (a writer told of fewer layers
      # than the union left sends its key again).
      scalable_combine: with.call(:scalable_combine, STRINGS_LUA),
      # The cells that are not 0 among [ARGV[2], ARGV[3]) of ARGV[1] bits.
      counting_occupied: with.call(:counting_occupied, CELLS_LUA),
      # The clock of the node holding KEYS[1].
      time: lua.call(:time),
      # KEYS[1] renamed to KEYS[2], to expire at ARGV[1] (ms): both deleted
      # if that time has passed (PEXPIREAT would delete KEYS[1] and leave
      # KEYS[2] as it was).
      install_expiring: lua.call(:install_expiring),
      # Creates the meta hash, or returns the one there.
      meta: lua.call(:meta)
    }.transform_values(&:freeze).freeze
    SHAS = SCRIPTS.transform_values { |source| Digest::SHA1.hexdigest(source) }.freeze
    private_constant :SCRIPTS, :SHAS
  end
end
