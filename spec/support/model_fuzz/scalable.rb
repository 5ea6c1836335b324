# frozen_string_literal: true

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
    include KeptKeys
    include FilterOps

    Inst = Struct.new(:obj, :keys, :adds, :merged)

    steps op_add: 35, op_include: 23, op_batch: 10, op_dup: 5, op_freeze: 2, op_frozen_write: 3, op_bad_key: 5,
          op_merge: 2, op_dump: 5, op_clear: 1, op_check: 9
    BAD_KEY_CALLS = %i[add << add? include? [] add_all add_new].freeze
    FROZEN_WRITES = {
      "add" => ->(f, _, key) { f.add(key) },
      "<<" => ->(f, _, key) { f << key },
      "add?" => ->(f, _, key) { f.add?(key) },
      "add_new" => ->(f, _, key) { f.add_new([key]) },
      "merge!" => ->(f, before, _) { f.merge!(before) },
      "clear" => ->(f, _, _) { f.clear }
    }.freeze
    # The ways a filter is copied through a file format: each must load back equal.
    LOADS = {
      dump: ->(f) { Bloomc.load(f.dump) },
      compressed: ->(f) { Bloomc::ScalableBloomFilter.load(f.dump(compress: true)) },
      Marshal: ->(f) { Marshal.load(Marshal.dump(f)) }
    }.freeze

    def setup
      kw = { error_rate: pick([0.2, 0.05, 0.01]), initial_capacity: rng.rand(1..6), growth: pick([1.25, 1.5, 2, 3]),
             tightening: pick([0.5, 0.8, 0.95]), even_layers: rng.rand(0..12), seed: rng.rand(2**32) }
      kw[:max_capacity] = rng.rand(kw[:initial_capacity]..300) if rng.rand(2).zero?
      @kw = kw
      log :new, kw
      @insts = [Inst.new(Bloomc::ScalableBloomFilter.new(**kw), {}, 0, false)]
      @pool = key_pool(300)
    end

    def unchanged?(inst) = inst.obj.size == inst.adds
    # Its writes take a key, none a position.
    def frozen_write_args(_inst) = [pick(@pool)]
    def same_contents?(copy, inst) = copy.layers == inst.obj.layers && copy.size == inst.obj.size

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
      inst.adds += 1
      inst.keys[FilterKey.id(key)] = key
      check(f.include?(key)) { "false negative right after adding #{show(key)}" }
      check(f.size == inst.adds) { "size #{f.size} after #{inst.adds} adds" }
      check_layers(inst)
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
      inst.adds += keys.size
      check(f.size == inst.adds) { "size #{f.size} after #{inst.adds} adds" }
      check(keys.all? { |key| f.include?(key) }) { "false negative right after #{via}" }
      check_layers(inst)
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
      adds = inst.adds + other.adds
      result = inst.obj.public_send(via, other.obj)
      check(via == :| ? result.instance_of?(Bloomc::ScalableBloomFilter) && !result.equal?(inst.obj) : result.equal?(inst.obj)) do
        "#{via} returned #{result.inspect[0, 60]}"
      end
      merged = Inst.new(result, keys, adds, true)
      if via == :|
        add_instance(merged)
      else
        inst.keys = keys
        inst.adds = adds
        inst.merged = true
      end
      full_check(merged)
      expect_raise([Bloomc::UnsupportedError], "&") { inst.obj & other.obj }
    end

    def op_dump
      inst = pick(@insts)
      via = pick(LOADS.keys)
      log via, @insts.index(inst)
      f = inst.obj
      copy = LOADS.fetch(via).call(f)
      check(copy == f && copy.layers == f.layers && !copy.frozen?) { "#{via} does not load back equal" }
      add_instance(copied(inst, copy))
    end

    def op_clear
      inst = pick(writable)
      log :clear, @insts.index(inst)
      check(inst.obj.clear.equal?(inst.obj)) { "clear did not return self" }
      inst.keys = {}
      inst.adds = 0
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
      check_kept(inst)
      check(inst.obj.all_include?(inst.keys.values)) { "all_include? misses a key include? finds" }
      check_layers(inst)
    end

    def final_check
      @insts.each { |inst| full_check(inst) }
      grown = @insts.map { |inst| inst.obj.layers.size }.max
      check(grown > 1 || @kw[:max_capacity].to_i.between?(1, @kw[:initial_capacity])) { "no instance ever grew a second layer" }
    end
  end
end
