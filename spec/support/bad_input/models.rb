# frozen_string_literal: true

# The receivers' reference models: the object under test, what it must
# hold, a snapshot to compare after a raise, and its invariants (problems).
# A recipe's ok check reads the model and tells it what a call did (add,
# delete, tick, merged_with_itself, cleared).
module BadInputMatrix
  # What every receiver has: a label for messages and the object called.
  class Receiver
    attr_reader :label, :obj

    def initialize(label, obj)
      @label = label
      @obj = obj
    end

    # Called after a call that should have raised returned instead: a model
    # that cannot follow what the call did reads the object again.
    def resync; end
    def write_frozen? = obj.frozen?
    def problems = []
  end

  # A receiver with no state (a module).
  class Stateless < Receiver
    def write_frozen? = false
    def snapshot = nil
  end

  # A BitField or BitBucketField, alone or the view of a filter (its owner),
  # against an Array of its values.
  class FieldHarness < Receiver
    attr_reader :model, :owner

    def initialize(label, obj, owner: nil)
      super(label, obj)
      @owner = owner
      resync
    end

    def resync = @model = obj.to_a
    def size = model.size
    def write_frozen? = obj.frozen? || (owner&.frozen? || false)
    def snapshot = [obj.size, obj.to_a, obj.total_set]

    def problems
      list = []
      list << "size #{obj.size} != model #{model.size}" unless obj.size == model.size
      list << "contents #{obj.to_a.inspect} != model #{model.inspect}" unless obj.to_a == model
      list << "total_set #{obj.total_set} != model #{model.count(&:positive?)}" unless obj.total_set == model.count(&:positive?)
      list << "the owner's view no longer matches" if owner && owner_view.to_a != obj.to_a
      list
    end
  end

  class BitFieldHarness < FieldHarness
    def owner_view = owner.bits
    def max = 1
  end

  class BucketFieldHarness < FieldHarness
    attr_reader :width

    # The width as made: #bits must keep answering it.
    def initialize(label, obj, owner: nil)
      @width = obj.bits
      super
    end

    def owner_view = owner.buckets
    def max = 2**width - 1

    def render(base)
      model.map { |v| base == 10 ? v.to_s : v.to_s(2).rjust(width, "0") }.join(" ")
    end
  end

  # What the models of filters share.
  class FilterModel < Receiver
    # A receiver holding keys: the filter takes them (and is frozen, if
    # asked) before its model is made from them.
    def self.holding(label, filter, keys, frozen: false)
      keys.each { |key| filter << key }
      new(label, frozen ? filter.freeze : filter, keys)
    end

    def snapshot = [obj.size, obj.dup]

    def among?(keys, key) = keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) }

    def size_problems(expected, what) = obj.size == expected ? [] : ["size #{obj.size} != #{what}"]

    def lost_problems(keys, what = "false negatives")
      lost = keys.reject { |key| obj.include?(key) }
      lost.empty? ? [] : ["#{what}: #{lost.inspect}"]
    end
  end

  # A model that puts its keys into the filter itself, one add at a time
  # (A2 reads its swaps before the first).
  class FillingModel < FilterModel
    attr_reader :size

    # The model starts cleared and takes each key as the filter does.
    def initialize(label, obj, keys = [])
      super(label, obj)
      cleared
      fill(keys)
    end

    # Frozen: the filter takes the keys and is frozen first, then the model
    # hears of them.
    def self.holding(label, filter, keys, frozen: false)
      return new(label, filter, keys) unless frozen

      keys.each { |key| filter << key }
      new(label, filter.freeze).tap { |model| keys.each { |key| model.add(key) } }
    end

    def fill(keys)
      keys.each do |key|
        obj << key
        add(key)
      end
    end
  end

  # A filter that keeps every key: the keys added and the adds (a repeated
  # key counts again in its size).
  class KeysHarness < FilterModel
    attr_reader :keys, :count

    def initialize(label, obj, keys = [])
      super(label, obj)
      @keys = []
      @count = 0
      keys.each { |key| add(key) }
    end

    def add(key)
      @keys << key
      @count += 1
    end

    def expected_include(key) = among?(keys, key) || nil

    # Set operations with a copy of itself (SET_OPS).
    def model_keys = keys
    def merged_with_itself = @count *= 2

    def cleared
      @keys = []
      @count = 0
    end

    def problems = size_problems(count, "#{count} adds") + lost_problems(keys)
  end

  # A BloomFilter; for seed 0 also its exact bits (BloomHelper.multi_hash
  # gives a seed-0 filter's positions).
  class BloomHarness < KeysHarness
    def initialize(label, obj, keys = [])
      @exact = exact_bits?(obj) ? "0" * obj.m : nil
      super
      @exact = nil if @exact && @exact != obj.bits.to_s
    end

    def exact_bits?(filter) = filter.seed.zero?
    def positions(key) = Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function)

    def add(key)
      super
      positions(key).each { |p| @exact[p] = "1" } if @exact
    end

    def expected_include(key)
      return true if among?(keys, key)
      return nil unless @exact

      positions(key).all? { |p| @exact[p] == "1" }
    end

    def snapshot = [obj.m, obj.k, obj.seed, obj.hash_function, obj.size, obj.bits.to_s]

    def cleared
      super
      @exact &&= "0" * obj.m
    end

    def problems
      super + (@exact && obj.bits.to_s != @exact ? ["bits differ from the seed-0 model"] : [])
    end
  end

  # A BlockedBloomFilter: as a BloomFilter, without the exact bit model
  # (its positions are not BloomHelper.multi_hash's).
  class BlockedHarness < BloomHarness
    def exact_bits?(_) = false
  end

  # A ScalableBloomFilter (no exact bit model: the layer a key went into
  # depends on what came before it). Until a union (which counts its layers
  # again from their bits), every layer but the newest holds exactly its
  # capacity.
  class ScalableHarness < KeysHarness
    attr_reader :merged

    def initialize(label, obj, keys = [])
      @merged = false
      super
    end

    def merged_with_itself
      super
      @merged = true
    end

    def cleared
      super
      @merged = false
    end

    def problems
      list = super
      layers = obj.layers
      list << "layer counts #{layers.map(&:count)} != distinct_count #{obj.distinct_count}" unless layers.sum(&:count) == obj.distinct_count
      list << "m #{obj.m} is not the layers' bits" unless layers.sum(&:m) == obj.m
      full = layers[0...-1].all? { |l| l.count == l.capacity }
      list << "a layer before the newest is not full: #{layers.map(&:count)}" unless merged || full
      list
    end
  end

  # A SlidingBloomFilter within one window of its clock: its keys, and its
  # generations' table agreeing with m.
  class SlidingHarness < KeysHarness
    def problems
      list = super
      windows = obj.windows
      list << "#{windows.size} generations, more than #{obj.generations + 1}" if windows.size > obj.generations + 1
      list << "m #{obj.m} with no generation" if windows.empty? && obj.m.positive?
      list
    end
  end

  # A BinaryFuseFilter: the set it was built from, which never changes.
  class FuseHarness < KeysHarness
    def snapshot = [obj.size, obj.dump]

    def problems
      distinct = keys.map { |key| FilterKey.id(key) }.uniq.size
      size_problems(distinct, "#{distinct} distinct keys") + lost_problems(keys)
    end
  end

  # A ContinuousBloomFilter with ttl 0 or a stopped timer: a Hash of key =>
  # tick of its last add, and for seed 0 the exact buckets.
  class ContinuousHarness < FilterModel
    attr_reader :ticks

    def initialize(label, obj, keys = [])
      super(label, obj)
      @last_add = {}
      @ticks = 0
      @exact = obj.seed.zero? ? Array.new(obj.m, 0) : nil
      keys.each { |key| add(key) }
      @exact = nil if @exact && @exact != obj.buckets.to_a
    end

    def slot_at(tick) = tick % 15 + 1
    def slot = slot_at(ticks)
    def live_slots = (([ticks - 2, 0].max)..ticks).map { |t| slot_at(t) }

    def positions(key) = Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function)

    def add(key)
      @last_add[FilterKey.id(key)] = [key, ticks]
      positions(key).each { |p| @exact[p] = slot } if @exact
    end

    def tick
      @ticks += 1
      live = live_slots
      @exact&.map! { |v| live.include?(v) ? v : 0 }
    end

    def expected_include(key)
      entry = @last_add[FilterKey.id(key)]
      return true if entry && ticks - entry[1] < 3
      return nil unless @exact

      positions(key).all? { |p| @exact[p] != 0 }
    end

    def snapshot
      [obj.m, obj.k, obj.ttl, obj.seed, obj.hash_function, obj.ticks, obj.buckets.to_a, obj.timer_running?]
    end

    def model_keys = @last_add.values.select { |_, t| ticks - t < 3 }.map(&:first)
    def merged_with_itself; end

    def cleared
      @last_add = {}
      @exact&.fill(0)
    end

    def problems
      list = []
      list << "ticks #{obj.ticks} != model #{ticks}" unless obj.ticks == ticks
      list.concat(lost_problems(model_keys, "false negatives within the TTL"))
      values = obj.buckets.to_a
      stale = values.uniq - [0] - live_slots
      list << "buckets hold expired slots #{stale} (live #{live_slots})" unless stale.empty?
      list << "buckets differ from the seed-0 model" if @exact && values != @exact
      list << "timer running" if obj.timer_running?
      list
    end
  end

  # A filter of counters (Counting, Spectral MI and RM, Bitwise): each key's
  # adds less its deletes. A delete that succeeds for a key the model holds
  # none of (a false positive) takes from other keys, as documented; the
  # model then stops promising counts.
  class CellsHarness < FillingModel
    def cap = obj.is_a?(Bloomc::BitwiseBloomFilter) ? Float::INFINITY : 2**obj.width - 1
    def rm? = obj.is_a?(Bloomc::SpectralBloomFilter) && obj.algorithm == :rm
    def net(key) = @net.fetch(FilterKey.id(key), [key, 0])[1]

    def add(key)
      @net[FilterKey.id(key)] = [key, net(key) + 1]
      @size += 1
    end

    # The result of delete(key): true when the model holds the key.
    def delete(key, result)
      if net(key).positive?
        return "false for a key added #{net(key)} time(s)" unless result == true

        @net[FilterKey.id(key)] = [key, net(key) - 1]
      elsif result == true
        @tainted = true # a false positive deleted: documented to take from other keys
      elsif result != false
        return "not a boolean: #{result.inspect}"
      end
      @size -= 1 if result == true && @size.positive? # saturated cells let a delete succeed without its add
      true
    end

    # count(key): never below the true count (capped at the cell maximum),
    # except RM's, whose second table may hold less (the manual's RM trades
    # the bound for accuracy).
    def count_ok(key, result)
      return "not an Integer" unless result.is_a?(Integer) && result >= 0
      return "above the cell maximum #{cap}" if result > cap
      return true if @tainted || rm?

      floor = [net(key), cap].min
      result >= floor || "#{result} below the #{net(key)} adds"
    end

    def expected_include(key)
      return true if !@tainted && net(key).positive?

      nil
    end

    def live = @net.values.select { |_, n| n.positive? }
    def model_keys = @tainted ? [] : live.map(&:first)
    # cells doubled: counts stay above the model's
    def merged_with_itself = @size *= 2

    def cleared
      @net = {}
      @size = 0
      @tainted = false
    end

    def problems
      list = size_problems(size, "model #{size}")
      return list if @tainted

      list.concat(lost_problems(live.map(&:first)))
      low = live.reject { |key, n| rm? || obj.count(key) >= [n, cap].min }
      list << "counts below the adds: #{low.inspect}" unless low.empty?
      list
    end
  end

  # A CuckooFilter: each key's copies added less deleted, as for a filter of
  # counters; a key's two buckets hold at most 2 * SLOTS copies of its
  # fingerprint, which count reports (more when other keys share them).
  class CuckooHarness < CellsHarness
    def cap = 2 * Bloomc::CuckooFilter::SLOTS
    def rm? = false

    # add_new stores a key only when it is not there (as add? does), so a
    # key it does not return (present, or a false positive) adds no copy.
    def add_new(key, returned) = returned && add(key)
  end

  # A StableBloomFilter: an add takes 1 from each of d distinct cells and
  # sets the key's cells to the maximum, so a key is certainly found until
  # 2**width - 1 more adds have passed.
  class StableHarness < FillingModel
    def add(key)
      @last_add[FilterKey.id(key)] = [key, @size]
      @size += 1
    end

    def fresh?(index) = size - 1 - index < 2**obj.width - 1

    def model_keys = @last_add.values.select { |_, i| fresh?(i) }.map(&:first)
    # the cells stay: keys only look older to the model
    def merged_with_itself = @size *= 2

    def cleared
      @last_add = {}
      @size = 0
    end

    def expected_include(key)
      entry = @last_add[FilterKey.id(key)]
      entry && fresh?(entry[1]) ? true : nil
    end

    def problems
      list = size_problems(size, "model #{size}") + lost_problems(model_keys, "recent keys lost")
      zeros = obj.zero_fraction
      list << "zero_fraction #{zeros} outside 0..1" unless zeros.is_a?(Float) && zeros.between?(0, 1)
      list
    end
  end

  # An A2BloomFilter: a half is cleared only after the other took capacity
  # new distinct keys, so a key is certainly found while fewer than capacity
  # other distinct keys were added after it.
  class A2Harness < FillingModel
    # The swaps the filter had made before its first key.
    def initialize(label, obj, keys = [])
      super(label, obj)
      @swaps = obj.swaps
      fill(keys)
    end

    def add(key)
      id = FilterKey.id(key)
      @recent.delete(id)
      @recent[id] = key
      @size += 1
    end

    def kept = @recent.values.last(obj.capacity)

    # A union counts the active half as the fuller one: with itself, the same.
    def model_keys = kept
    def merged_with_itself = @size *= 2

    def cleared
      @recent = {} # key id => key, in order of last add
      @size = 0
      @swaps = 0
    end

    def expected_include(key) = among?(kept, key) || nil

    def problems
      list = size_problems(size, "model #{size}") + lost_problems(kept, "keys of the last #{obj.capacity} lost")
      list << "active_size #{obj.active_size} outside 0..#{obj.capacity}" unless obj.active_size.between?(0, obj.capacity)
      list << "swaps went from #{@swaps} to #{obj.swaps}" unless obj.swaps.between?(@swaps, @swaps + size)
      list
    end
  end
end
