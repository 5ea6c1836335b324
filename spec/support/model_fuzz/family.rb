# frozen_string_literal: true

# FamilyFuzz: the libBf manual's family (counting, spectral, bitwise, stable,
# A2) against reference models.
module ModelFuzz
  # The libBf family against reference models: exact cells for the counting
  # filter and minimum increase (a seed-0 filter's cells are at
  # BloomHelper.multi_hash's positions), the bounds every variant promises
  # otherwise (counts never below the adds, RM and bitwise included where
  # they hold; a stable filter's recent keys; A2's last capacity keys; A2's
  # two halves exactly for seed 0). Small m forces collisions and saturation.
  class FamilyFuzz < Fuzzer
    def initialize(name, seed, kind, ops: OPS)
      super(name, seed, ops)
      @kind = kind
    end

    def setup
      m = rng.rand(3).zero? ? rng.rand(1..6) : rng.rand(7..300)
      k = rng.rand(1..8)
      width = pick([1, 2, 3, 4, 8, 31, 32])
      @filter =
        case @kind
        when :counting then Bloomc::CountingBloomFilter.new(m, k, width: width)
        when :mi then Bloomc::SpectralBloomFilter.new(m, k, width: width)
        when :rm then Bloomc::SpectralBloomFilter.new(m, k, width: width, algorithm: :rm, secondary_m: rng.rand(1..m))
        when :bitwise then Bloomc::BitwiseBloomFilter.new(m, k, width: pick([1, 2, 3, 8]))
        when :stable then Bloomc::StableBloomFilter.new(m, k, rng.rand(1..m), width: pick([1, 2, 3, 5]), random_seed: rng.rand(2**64))
        when :a2 then Bloomc::A2BloomFilter.new(m * 2, k, capacity: rng.rand(1..20))
        end
      log :new, @filter.inspect
      @max = @filter.respond_to?(:width) && @kind != :bitwise ? 2**@filter.width - 1 : Float::INFINITY
      @net = Hash.new(0) # key id => adds less deletes
      @keys = {}         # key id => key
      @size = 0
      @order = {}        # key id => key, by last add (stable: add index)
      @cells = Array.new(@filter.m, 0) if %i[counting mi].include?(@kind)
      @halves = [Array.new(@filter.m / 2, false), Array.new(@filter.m / 2, false)] if @kind == :a2
      @active = 0
      @in_active = 0
      @pool = key_pool(rng.rand(5..200))
    end

    def step
      case rng.rand(100)
      when 0...45 then op_add
      when 45...55 then op_delete
      when 55...75 then op_lookup
      when 75...80 then op_batch
      when 80...84 then op_copy
      when 84...88 then op_bad
      else full_check
      end
    end

    def positions(key, m = @filter.m) = Bloomc::BloomHelper.multi_hash(key, @filter.k, m, hash: probe_hash)

    # The counting kinds without a hash: field probe as :murmur3 does.
    def probe_hash = @filter.respond_to?(:hash_function) ? @filter.hash_function : :murmur3

    def deletes? = %i[counting rm].include?(@kind)

    def model_add(key)
      id = FilterKey.id(key)
      @keys[id] = key
      @net[id] += 1
      @size += 1
      @order.delete(id)
      @order[id] = @size
      case @kind
      when :counting then positions(key).each { |p| @cells[p] = [@cells[p] + 1, @max].min }
      when :mi
        pos = positions(key)
        min = pos.map { |p| @cells[p] }.min
        pos.uniq.each { |p| @cells[p] = [min + 1, @max].min if @cells[p] == min }
      when :a2
        pos = positions(key, @filter.m / 2)
        unless pos.all? { |p| @halves[@active][p] }
          if @in_active >= @filter.capacity
            @active = 1 - @active
            @halves[@active].fill(false)
            @in_active = 0
          end
          pos.each { |p| @halves[@active][p] = true }
          @in_active += 1
        end
      end
    end

    def op_add
      key = pick(@pool)
      log :add, key
      check(@filter.add(key).equal?(@filter)) { "add did not return self" }
      model_add(key)
      check(@filter.include?(key)) { "false negative right after adding #{show(key)}" }
    end

    def op_delete
      return unless deletes?

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
      positions(key).each { |p| @cells[p] -= 1 if @cells[p] != 0 && @cells[p] != @max } if @kind == :counting
    end

    def op_lookup
      key = rng.rand(2).zero? && !@keys.empty? ? pick(@keys.values) : pick(@pool)
      log :lookup, key
      check_key(key, @filter.include?(key), @filter.respond_to?(:count) ? @filter.count(key) : nil)
    end

    def check_key(key, found, count)
      id = FilterKey.id(key)
      net = @net[id]
      check([true, false].include?(found)) { "include? returned #{found.inspect}" }
      case @kind
      when :counting, :mi
        exact = positions(key).map { |p| @cells[p] }.min
        check(count == exact) { "count(#{show(key)}) is #{count}, the exact cells say #{exact} (true count #{net})" }
        check(found == exact.positive?) { "include?(#{show(key)}) is #{found}, the exact cells say #{exact}" }
      when :rm
        check(found || net.zero?) { "false negative for #{show(key)} (count #{net})" }
        check(count.is_a?(Integer) && count.between?(0, @max)) { "count #{count.inspect} outside 0..#{@max}" }
      when :bitwise
        check(count >= net) { "count(#{show(key)}) is #{count}, below its #{net} adds" }
        check(found == count.positive?) { "include? #{found} but count #{count}" }
      when :stable
        fresh = @order.key?(id) && @size - @order[id] < @max
        check(found || !fresh) { "#{show(key)}, added #{@size - @order[id]} adds ago, lost (width #{@filter.width})" }
      when :a2
        exact = [0, 1].any? { |h| positions(key, @filter.m / 2).all? { |p| @halves[h][p] } }
        check(found == exact) { "include?(#{show(key)}) is #{found}, the exact halves say #{exact}" }
      end
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
      expect_raise([Bloomc::UnsupportedError], "delete on MI") { @filter.delete(pick(@pool)) } if @kind == :mi
    end

    def full_check
      log :full_check
      check(@filter.size == @size) { "size #{@filter.size} != model #{@size}" }
      @keys.each_value do |key|
        check_key(key, @filter.include?(key), @filter.respond_to?(:count) ? @filter.count(key) : nil)
      end
      check(@filter.swaps >= 0 && @filter.active_size == @in_active) { "active_size #{@filter.active_size} != model #{@in_active}" } if @kind == :a2
      return unless @cells

      check(@filter.saturated == @cells.count(@max)) { "saturated #{@filter.saturated} != model #{@cells.count(@max)}" } if @kind == :counting
    end

    def final_check = full_check
  end
end
