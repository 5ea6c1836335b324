# frozen_string_literal: true

module ModelFuzz
  # The libBf family against reference models: exact cells for the counting
  # filter and minimum increase (a seed-0 filter's cells are at
  # BloomHelper.multi_hash's positions), the bounds every variant promises
  # otherwise (counts never below the adds, RM and bitwise included where
  # they hold; a stable filter's recent keys; A2's last capacity keys; A2's
  # two halves exactly for seed 0). Small m forces collisions and saturation.
  class FamilyFuzz < Fuzzer
    steps op_add: 45, op_delete: 10, op_lookup: 20, op_batch: 5, op_copy: 4, op_bad: 4, full_check: 12

    # Each variant: how it is built once m, k and width are drawn (drawing
    # what else it needs), the cell maximum its counts stop at (none:
    # unbounded), the reference model it keeps (exact cells, A2's halves)
    # and how an add and a delete change it, what a lookup must answer, and
    # what a full check adds. Method names are the fuzzer's own.
    VARIANTS = {
      counting: { build: ->(_, m, k, width) { Bloomc::CountingBloomFilter.new(m, k, width: width) },
                  capped: true, model: :cells, add: :add_saturating, deletes: :delete_from_cells,
                  lookup: :check_exact_cells, full: :check_saturated },
      mi: { build: ->(_, m, k, width) { Bloomc::SpectralBloomFilter.new(m, k, width: width) },
            capped: true, model: :cells, add: :add_minimum_increase, refuses_delete: true, lookup: :check_exact_cells },
      rm: { build: ->(fuzz, m, k, width) { Bloomc::SpectralBloomFilter.new(m, k, width: width, algorithm: :rm, secondary_m: fuzz.rng.rand(1..m)) },
            capped: true, deletes: :delete_counted, lookup: :check_rm },
      bitwise: { build: ->(fuzz, m, k, _) { Bloomc::BitwiseBloomFilter.new(m, k, width: fuzz.pick([1, 2, 3, 8])) },
                 lookup: :check_bitwise },
      stable: { build: lambda { |fuzz, m, k, _|
        Bloomc::StableBloomFilter.new(m, k, fuzz.rng.rand(1..m), width: fuzz.pick([1, 2, 3, 5]), random_seed: fuzz.rng.rand(2**64))
      }, capped: true, lookup: :check_stable },
      a2: { build: ->(fuzz, m, k, _) { Bloomc::A2BloomFilter.new(m * 2, k, capacity: fuzz.rng.rand(1..20)) },
            model: :halves, add: :add_to_halves, lookup: :check_halves, full: :check_active_half }
    }.freeze

    def initialize(name, seed, kind, ops: OPS)
      super(name, seed, ops)
      @variant = VARIANTS.fetch(kind)
    end

    def setup
      m = rng.rand(3).zero? ? rng.rand(1..6) : rng.rand(7..300)
      k = rng.rand(1..8)
      width = pick([1, 2, 3, 4, 8, 31, 32])
      @filter = @variant[:build].call(self, m, k, width)
      log :new, @filter.inspect
      @max = @variant[:capped] ? 2**@filter.width - 1 : Float::INFINITY
      @net = Hash.new(0) # key id => adds less deletes
      @keys = {}         # key id => key
      @size = 0
      @order = {}        # key id => key, by last add (stable: add index)
      @cells = Array.new(@filter.m, 0) if @variant[:model] == :cells
      @halves = [Array.new(@filter.m / 2, false), Array.new(@filter.m / 2, false)] if @variant[:model] == :halves
      @active = 0
      @in_active = 0
      @pool = key_pool(rng.rand(5..200))
    end

    def positions(key, m = @filter.m) = Bloomc::BloomHelper.multi_hash(key, @filter.k, m, hash: probe_hash)

    # The counting kinds without a hash: field probe as :murmur3 does.
    def probe_hash = @filter.respond_to?(:hash_function) ? @filter.hash_function : :murmur3

    def model_add(key)
      id = FilterKey.id(key)
      @keys[id] = key
      @net[id] += 1
      @size += 1
      @order.delete(id)
      @order[id] = @size
      send(@variant[:add], key) if @variant[:add]
    end

    def add_saturating(key) = positions(key).each { |p| @cells[p] = [@cells[p] + 1, @max].min }

    def add_minimum_increase(key)
      pos = positions(key)
      min = pos.map { |p| @cells[p] }.min
      pos.uniq.each { |p| @cells[p] = [min + 1, @max].min if @cells[p] == min }
    end

    # A key new to the active half counts against its capacity; a full one
    # makes the other half active, cleared.
    def add_to_halves(key)
      pos = positions(key, @filter.m / 2)
      return if pos.all? { |p| @halves[@active][p] }

      if @in_active >= @filter.capacity
        @active = 1 - @active
        @halves[@active].fill(false)
        @in_active = 0
      end
      pos.each { |p| @halves[@active][p] = true }
      @in_active += 1
    end

    # A saturated cell stays at the maximum.
    def delete_from_cells(key) = positions(key).each { |p| @cells[p] -= 1 if @cells[p] != 0 && @cells[p] != @max }
    def delete_counted(_key) = nil

    def op_add
      key = pick(@pool)
      log :add, key
      check(@filter.add(key).equal?(@filter)) { "add did not return self" }
      model_add(key)
      check(@filter.include?(key)) { "false negative right after adding #{show(key)}" }
    end

    def op_delete
      return unless @variant[:deletes]

      added = @net.select { |_, n| n.positive? }.keys
      key = rng.rand(4).zero? || added.empty? ? pick(@pool) : @keys[pick(added)]
      id = FilterKey.id(key)
      # Only keys that were added are deleted: a false positive's delete
      # takes from other keys, as documented, and would void the model.
      return unless @net[id].positive?

      log :delete, key
      check(@filter.delete(key) == true) { "delete(#{show(key)}) of a key counted #{@net[id]} times is not true" }
      @net[id] -= 1
      @size -= 1
      send(@variant[:deletes], key)
    end

    def op_lookup
      key = rng.rand(2).zero? && !@keys.empty? ? pick(@keys.values) : pick(@pool)
      log :lookup, key
      check_key(key)
    end

    def check_key(key)
      found = @filter.include?(key)
      count = @filter.respond_to?(:count) ? @filter.count(key) : nil
      check([true, false].include?(found)) { "include? returned #{found.inspect}" }
      send(@variant[:lookup], key, found, count, @net[FilterKey.id(key)])
    end

    def check_exact_cells(key, found, count, net)
      exact = positions(key).map { |p| @cells[p] }.min
      check(count == exact) { "count(#{show(key)}) is #{count}, the exact cells say #{exact} (true count #{net})" }
      check(found == exact.positive?) { "include?(#{show(key)}) is #{found}, the exact cells say #{exact}" }
    end

    # RM's second table may count less than the adds: no false negative, a
    # count within the cells' range.
    def check_rm(key, found, count, net)
      check(found || net.zero?) { "false negative for #{show(key)} (count #{net})" }
      check(count.is_a?(Integer) && count.between?(0, @max)) { "count #{count.inspect} outside 0..#{@max}" }
    end

    def check_bitwise(key, found, count, net)
      check(count >= net) { "count(#{show(key)}) is #{count}, below its #{net} adds" }
      check(found == count.positive?) { "include? #{found} but count #{count}" }
    end

    # Found for certain while fewer than the cell maximum adds came after it.
    def check_stable(key, found, _count, _net)
      id = FilterKey.id(key)
      fresh = @order.key?(id) && @size - @order[id] < @max
      check(found || !fresh) { "#{show(key)}, added #{@size - @order[id]} adds ago, lost (width #{@filter.width})" }
    end

    def check_halves(key, found, _count, _net)
      exact = [0, 1].any? { |h| positions(key, @filter.m / 2).all? { |p| @halves[h][p] } }
      check(found == exact) { "include?(#{show(key)}) is #{found}, the exact halves say #{exact}" }
    end

    def check_saturated
      check(@filter.saturated == @cells.count(@max)) { "saturated #{@filter.saturated} != model #{@cells.count(@max)}" }
    end

    def check_active_half
      check(@filter.swaps >= 0 && @filter.active_size == @in_active) { "active_size #{@filter.active_size} != model #{@in_active}" }
    end

    def op_batch
      keys = Array.new(rng.rand(0..40)) { pick(@pool) }
      if rng.rand(2).zero?
        log :add_all, keys.size
        check(@filter.add_all(keys).equal?(@filter)) { "add_all did not return self" }
        keys.each { |key| model_add(key) }
      else
        log :include_all, keys.size
        singles = keys.map { |key| @filter.include?(key) }
        check(@filter.include_all(keys) == singles) { "include_all differs from include? key by key" }
        check(@filter.count_included(keys) == singles.count(true)) { "count_included differs" }
      end
    end

    def op_copy
      log :dup
      copy = @filter.dup
      check(copy == @filter && copy.hash == @filter.hash) { "dup is not equal to its original" }
      key = pick(@pool)
      copy << key
      frozen = @filter.dup.freeze
      before = @filter.dup
      expect_raise([FrozenError], "add on a frozen copy") { frozen << key }
      expect_raise([FrozenError, Bloomc::UnsupportedError], "delete on a frozen copy") { frozen.delete(key) } if @filter.respond_to?(:delete)
      check(@filter == before) { "writing to a copy changed the original" }
    end

    def op_bad
      bad = pick(BAD_KEYS)
      before = @filter.dup
      via = pick(%i[add include? add_all])
      log via, bad
      arg = via == :add_all ? [pick(@pool), bad] : bad
      expect_raise([TypeError], "#{via}(#{show(arg)})") { @filter.public_send(via, arg) }
      check(@filter == before) { "#{via}(#{show(arg)}) raised but changed the filter" }
      expect_raise([Bloomc::UnsupportedError], "delete on MI") { @filter.delete(pick(@pool)) } if @variant[:refuses_delete]
    end

    def full_check
      log :full_check
      check(@filter.size == @size) { "size #{@filter.size} != model #{@size}" }
      @keys.each_value { |key| check_key(key) }
      send(@variant[:full]) if @variant[:full]
    end

    def final_check = full_check
  end
end
