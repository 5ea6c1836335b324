# frozen_string_literal: true

# ScalableFuzz: ScalableBloomFilter against its keys and its layer schedule.
module ModelFuzz
  # ScalableBloomFilter against a Set of its keys: no false negative, add?
  # nil for every key it holds, size the adds, and its layers as the
  # schedule makes them: every one but the newest holds exactly its
  # capacity, and a new one starts with the first new key past that. Small
  # shapes bring many layers and, with a max_capacity, CapacityError, which
  # must leave the filter as it was. Copies share the history; a union
  # re-counts its layers from their bits, so after one only the layers'
  # capacities and the sum of their counts are checked, until a clear.
  class ScalableFuzz < Fuzzer
    include Copies

    Inst = Struct.new(:obj, :keys, :count, :merged)

    def setup
      kw = { error_rate: pick([0.2, 0.05, 0.01]), initial_capacity: rng.rand(1..6), growth: pick([1.25, 1.5, 2, 3]),
             tightening: pick([0.5, 0.8, 0.95]), even_layers: rng.rand(0..12), seed: rng.rand(2**32) }
      kw[:max_capacity] = rng.rand(kw[:initial_capacity]..300) if rng.rand(2).zero?
      @kw = kw
      log :new, kw
      @insts = [Inst.new(Bloomc::ScalableBloomFilter.new(**kw), {}, 0, false)]
      @pool = key_pool(300)
    end

    def step
      case rng.rand(100)
      when 0...35 then op_add
      when 35...58 then op_include
      when 58...68 then op_batch
      when 68...73 then op_dup
      when 73...75 then op_freeze
      when 75...78 then op_frozen_write
      when 78...83 then op_bad_key
      when 83...85 then op_merge
      when 85...90 then op_dump
      when 90...91 then op_clear
      else full_check(pick(@insts))
      end
    end

    def held?(inst, key) = inst.keys.key?(FilterKey.id(key))

    # A CapacityError is right only when the keys new to the filter are
    # more than it has room for (its newest layer's and the layers it may
    # still start, up to max_capacity or MAX_LAYERS), and changes nothing.
    def refused(inst, before, keys, what)
      f = inst.obj
      unheld = keys.reject { |key| held?(inst, key) }.uniq { |key| FilterKey.id(key) }.size
      check(f == before) { "#{what} raised CapacityError and changed the filter" }
      check(unheld > room(f)) { "#{what} raised CapacityError for #{unheld} keys it did not hold, with room for #{room(f)}" }
    end

    def room(filter)
      layers = filter.layers
      top = layers.last
      [top.capacity - top.count, 0].max + (layers.size...Bloomc::ScalableBloomFilter::MAX_LAYERS).sum { |i| [capacity_of(i), 0].max }
    end

    def op_add
      inst = pick(writable)
      f = inst.obj
      key = pick(@pool)
      via = pick(%i[add << add?])
      log via, @insts.index(inst), key
      before = f.dup
      held = held?(inst, key)
      begin
        result = f.public_send(via, key)
      rescue Bloomc::CapacityError
        return refused(inst, before, [key], "#{via}(#{show(key)})")
      end
      fresh = f.distinct_count - before.distinct_count
      if via == :add?
        check(result.nil? || result.equal?(f)) { "add? returned #{result.inspect}, not self or nil" }
        check(fresh == (result ? 1 : 0)) { "add? returned #{result.inspect} but distinct_count went up by #{fresh}" }
      else
        check(result.equal?(f)) { "#{via} returned #{result.inspect}, not self" }
      end
      check(!held || fresh.zero?) { "#{via} of #{show(key)}, which it holds, counted it as new" }
      check(fresh.between?(0, 1)) { "one add counted #{fresh} new keys" }
      inst.count += 1
      inst.keys[FilterKey.id(key)] = key
      check(f.include?(key)) { "false negative right after adding #{show(key)}" }
      check(f.size == inst.count) { "size #{f.size} after #{inst.count} adds" }
      check_layers(inst)
    end

    def op_include
      inst = pick(@insts)
      key = !inst.keys.empty? && rng.rand(2).zero? ? pick(inst.keys.values) : pick(@pool)
      via = pick(%i[include? []])
      log via, @insts.index(inst), key
      result = inst.obj.public_send(via, key)
      check([true, false].include?(result)) { "#{via} returned #{result.inspect}" }
      check(result || !held?(inst, key)) { "false negative for #{show(key)}" }
    end

    def op_batch
      inst = pick(writable)
      f = inst.obj
      keys = Array.new(rng.rand(0..25)) { !inst.keys.empty? && rng.rand(3).zero? ? pick(inst.keys.values) : pick(@pool) }
      via = pick(%i[add_all add_new include_all])
      log via, @insts.index(inst), keys.size
      if via == :include_all
        singles = keys.map { |key| f.include?(key) }
        check(f.include_all(keys) == singles) { "include_all differs from include? key by key" }
        check(f.count_included(keys) == singles.count(true)) { "count_included differs" }
        return
      end
      before = f.dup
      begin
        result = f.public_send(via, keys)
      rescue Bloomc::CapacityError
        return refused(inst, before, keys, "#{via} of #{keys.size} keys")
      end
      fresh = f.distinct_count - before.distinct_count
      if via == :add_new
        seen = {}
        at = 0
        keys.each do |key|
          id = FilterKey.id(key)
          if at < result.size && result[at].equal?(key)
            check(!held?(inst, key) && !seen.key?(id)) { "add_new returned #{show(key)}, which it held" }
            at += 1
          end
          seen[id] = true
        end
        check(at == result.size) { "add_new returned #{result.size - at} keys not of the batch, or out of order" }
        check(fresh == result.size) { "add_new returned #{result.size} keys, distinct_count went up by #{fresh}" }
      else
        check(result.equal?(f)) { "add_all did not return self" }
      end
      keys.each { |key| inst.keys[FilterKey.id(key)] = key }
      inst.count += keys.size
      check(f.size == inst.count) { "size #{f.size} after #{inst.count} adds" }
      check(keys.all? { |key| f.include?(key) }) { "false negative right after #{via}" }
      check_layers(inst)
    end

    def op_dup
      inst = pick(@insts)
      via = pick(%i[dup clone])
      log via, @insts.index(inst)
      f = inst.obj
      copy = f.public_send(via)
      check(!copy.equal?(f) && copy == f && copy.eql?(f) && copy.hash == f.hash) { "#{via} is not equal to its original" }
      check(copy.layers == f.layers && copy.size == f.size) { "#{via} has other layers than its original" }
      check(copy.frozen? == (via == :clone && f.frozen?)) { "#{via} of a #{f.frozen? ? 'frozen' : 'live'} filter has frozen? #{copy.frozen?}" }
      add_instance(Inst.new(copy, inst.keys.dup, inst.count, inst.merged))
    end

    def op_frozen_write
      inst = pick(frozen_insts) or return
      f = inst.obj
      before = f.dup
      key = pick(@pool)
      log :frozen_write, @insts.index(inst), key
      expect_raise([FrozenError], "add on a frozen filter") { f.add(key) }
      expect_raise([FrozenError], "<< on a frozen filter") { f << key }
      expect_raise([FrozenError], "add? on a frozen filter") { f.add?(key) }
      expect_raise([FrozenError], "add_new on a frozen filter") { f.add_new([key]) }
      expect_raise([FrozenError], "merge! on a frozen filter") { f.merge!(before) }
      expect_raise([FrozenError], "clear on a frozen filter") { f.clear }
      check(f == before) { "a refused write changed a frozen filter" }
      full_check(inst)
    end

    def op_bad_key
      inst = pick(@insts)
      bad = pick(BAD_KEYS)
      via = pick(%i[add << add? include? [] add_all add_new])
      arg = %i[add_all add_new].include?(via) ? [pick(@pool), bad] : bad
      log via, @insts.index(inst), arg
      before = inst.obj.dup
      write = !%i[include? []].include?(via)
      allowed = write && inst.obj.frozen? ? [FrozenError, TypeError] : [TypeError]
      expect_raise(allowed, "#{via}(#{show(arg)})") { inst.obj.public_send(via, arg) }
      check(inst.obj == before && inst.obj.size == inst.count) { "#{via}(#{show(arg)}) raised but changed the filter" }
    end

    # A union with another instance (a copy of the same parameters, or
    # itself): every key of both found, the sizes added up. merge! spares
    # instance 0 while another is writable, so that its layers stay checked.
    def op_merge
      via = rng.rand(3).zero? ? :merge! : :|
      inst = via == :merge! && writable.size > 1 ? pick(writable.drop(1)) : pick(writable)
      other = pick(@insts)
      log via, @insts.index(inst), @insts.index(other)
      keys = inst.keys.merge(other.keys)
      count = inst.count + other.count
      result = inst.obj.public_send(via, other.obj)
      check(via == :| ? result.instance_of?(Bloomc::ScalableBloomFilter) && !result.equal?(inst.obj) : result.equal?(inst.obj)) do
        "#{via} returned #{result.inspect[0, 60]}"
      end
      merged = Inst.new(result, keys, count, true)
      via == :| ? add_instance(merged) : (inst.keys, inst.count, inst.merged = keys, count, true)
      full_check(merged)
      expect_raise([Bloomc::UnsupportedError], "&") { inst.obj & other.obj }
    end

    def op_dump
      inst = pick(@insts)
      via = pick(%i[dump compressed Marshal])
      log via, @insts.index(inst)
      f = inst.obj
      copy = case via
             when :dump then Bloomc.load(f.dump)
             when :compressed then Bloomc::ScalableBloomFilter.load(f.dump(compress: true))
             else Marshal.load(Marshal.dump(f))
             end
      check(copy == f && copy.layers == f.layers && !copy.frozen?) { "#{via} does not load back equal" }
      add_instance(Inst.new(copy, inst.keys.dup, inst.count, inst.merged))
    end

    def op_clear
      inst = pick(writable)
      log :clear, @insts.index(inst)
      check(inst.obj.clear.equal?(inst.obj)) { "clear did not return self" }
      inst.keys = {}
      inst.count = 0
      inst.merged = false
      check(inst.obj.layers.size == 1 && inst.obj.empty? && inst.obj.distinct_count.zero?) { "clear left #{inst.obj.inspect}" }
      full_check(inst)
    end

    # The capacity of layer i as the schedule makes it.
    def capacity_of(i)
      grown = (@kw[:initial_capacity] * @kw[:growth]**i).round
      max = @kw[:max_capacity] or return grown
      taken = (0...i).sum { |j| (@kw[:initial_capacity] * @kw[:growth]**j).round }
      [grown, max - taken].min
    end

    # Layer capacities and counts; after a union (which counts each layer
    # again from its bits) only the capacities and the sum.
    def check_layers(inst)
      f = inst.obj
      layers = f.layers
      counts = layers.map(&:count)
      check(counts.sum == f.distinct_count) { "layer counts #{counts} do not add up to distinct_count #{f.distinct_count}" }
      layers.each_with_index do |layer, i|
        check(layer.capacity == capacity_of(i)) { "layer #{i} takes #{layer.capacity} keys, the schedule says #{capacity_of(i)}" }
      end
      return if inst.merged

      check(f.distinct_count <= inst.keys.size) { "distinct_count #{f.distinct_count} above the #{inst.keys.size} keys added" }
      check(counts[0...-1] == layers[0...-1].map(&:capacity)) { "a layer before the newest is not full: #{counts}" }
      check(layers.size == 1 || counts.last.positive?) { "the newest layer started before a key came for it: #{counts}" }
    end

    def full_check(inst)
      f = inst.obj
      check(f.size == inst.count) { "size #{f.size} != #{inst.count} adds" }
      missing = inst.keys.values.reject { |key| f.include?(key) }
      check(missing.empty?) { "false negatives: #{missing.first(5).map { |k| show(k) }.join(', ')}" }
      check(f.all_include?(inst.keys.values)) { "all_include? misses a key include? finds" }
      check_layers(inst)
    end

    def final_check
      @insts.each { |inst| full_check(inst) }
      grown = @insts.map { |inst| inst.obj.layers.size }.max
      check(grown > 1 || @kw[:max_capacity].to_i.between?(1, @kw[:initial_capacity])) { "no instance ever grew a second layer" }
    end
  end
end
