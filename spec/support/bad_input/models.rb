# frozen_string_literal: true

# The receivers' reference models: the object under test, what it must
# hold, a snapshot to compare after a raise, and its invariants.
module BadInputMatrix
  # A receiver with no state (a module).
  class Stateless
    attr_reader :label, :obj

    def initialize(label, obj)
      @label = label
      @obj = obj
    end

    def write_frozen? = false
    def snapshot = nil
    def problems = []
    def resync; end
  end

  class FieldHarness
    attr_reader :label, :obj, :model, :owner

    def initialize(label, obj, owner: nil)
      @label = label
      @obj = obj
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
    def initialize(label, obj, owner: nil)
      @width = obj.bits
      super
    end

    attr_reader :width

    def owner_view = owner.buckets
    def max = 2**width - 1

    def render(base)
      model.map { |v| base == 10 ? v.to_s : v.to_s(2).rjust(width, "0") }.join(" ")
    end
  end

  # A BloomFilter and the keys added to it; for seed 0 also its exact bits
  # (BloomHelper.multi_hash gives a seed-0 filter's positions).
  class BloomHarness
    attr_reader :label, :obj, :keys, :count

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @exact = obj.seed.zero? ? "0" * obj.m : nil
      keys.each { |key| add(key) }
      @exact = nil if @exact && @exact != obj.bits.to_s
    end

    def add(key)
      @keys << key
      @count += 1
      Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function).each { |p| @exact[p] = "1" } if @exact
    end

    def expected_include(key)
      return true if keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) }
      return nil unless @exact

      Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function).all? { |p| @exact[p] == "1" }
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.m, obj.k, obj.seed, obj.hash_function, obj.size, obj.bits.to_s]

    # Set operations with a copy of itself (SET_OPS).
    def model_keys = keys
    def merged_with_itself = @count *= 2

    def cleared
      @keys = []
      @count = 0
      @exact &&= "0" * obj.m
    end

    def problems
      list = []
      list << "size #{obj.size} != #{count} adds" unless obj.size == count
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      list << "bits differ from the seed-0 model" if @exact && obj.bits.to_s != @exact
      list
    end
  end

  # A BlockedBloomFilter: as a BloomFilter, without the exact bit model
  # (its positions are not BloomHelper.multi_hash's).
  class BlockedHarness < BloomHarness
    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @exact = nil
      keys.each { |key| add(key) }
    end
  end

  # A ContinuousBloomFilter with ttl 0 or a stopped timer: a Hash of key =>
  # tick of its last add, and for seed 0 the exact buckets.
  class ContinuousHarness
    attr_reader :label, :obj, :ticks

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
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

    def resync; end
    def write_frozen? = obj.frozen?

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
      lost = @last_add.values.select { |_, t| ticks - t < 3 }.map(&:first).reject { |key| obj.include?(key) }
      list << "false negatives within the TTL: #{lost.inspect}" unless lost.empty?
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
  class CellsHarness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @net = {}
      @size = 0
      @tainted = false
      keys.each { |key| obj << key; add(key) }
    end

    def cap = obj.is_a?(Bloomc::BitwiseBloomFilter) ? Float::INFINITY : 2**obj.width - 1
    def rm? = obj.is_a?(Bloomc::SpectralBloomFilter) && obj.algorithm == :rm
    def net(key) = @net.fetch(FilterKey.id(key), [key, 0])[1]

    def add(key)
      id = FilterKey.id(key)
      @net[id] = [key, net(key) + 1]
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

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def model_keys = @tainted ? [] : @net.values.select { |_, n| n.positive? }.map(&:first)
    def merged_with_itself = @size *= 2 # cells doubled: counts stay above the model's

    def cleared
      @net = {}
      @size = 0
      @tainted = false
    end

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      return list if @tainted

      live = @net.values.select { |_, n| n.positive? }
      missing = live.map(&:first).reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
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

  # A BinaryFuseFilter: the set it was built from, which never changes.
  class FuseHarness
    attr_reader :label, :obj, :keys

    def initialize(label, obj, keys)
      @label = label
      @obj = obj
      @keys = keys
    end

    def expected_include(key)
      keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dump]
    def model_keys = keys

    def problems
      distinct = keys.map { |key| FilterKey.id(key) }.uniq.size
      list = []
      list << "size #{obj.size} != #{distinct} distinct keys" unless obj.size == distinct
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      list
    end
  end

  # A StableBloomFilter: an add takes 1 from each of d distinct cells and
  # sets the key's cells to the maximum, so a key is certainly found until
  # 2**width - 1 more adds have passed.
  class StableHarness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @last_add = {}
      @size = 0
      keys.each { |key| obj << key; add(key) }
    end

    def add(key)
      @last_add[FilterKey.id(key)] = [key, @size]
      @size += 1
    end

    def fresh?(index) = size - 1 - index < 2**obj.width - 1

    def model_keys = @last_add.values.select { |_, i| fresh?(i) }.map(&:first)
    def merged_with_itself = @size *= 2 # the cells stay: keys only look older to the model

    def cleared
      @last_add = {}
      @size = 0
    end

    def expected_include(key)
      entry = @last_add[FilterKey.id(key)]
      entry && fresh?(entry[1]) ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      lost = @last_add.values.select { |_, i| fresh?(i) }.map(&:first).reject { |key| obj.include?(key) }
      list << "recent keys lost: #{lost.inspect}" unless lost.empty?
      zeros = obj.zero_fraction
      list << "zero_fraction #{zeros} outside 0..1" unless zeros.is_a?(Float) && zeros.between?(0, 1)
      list
    end
  end

  # An A2BloomFilter: a half is cleared only after the other took capacity
  # new distinct keys, so a key is certainly found while fewer than capacity
  # other distinct keys were added after it.
  class A2Harness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @recent = {} # key id => key, in order of last add
      @size = 0
      @swaps = obj.swaps
      keys.each { |key| obj << key; add(key) }
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
      @recent = {}
      @size = 0
      @swaps = 0
    end

    def expected_include(key)
      kept.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      lost = kept.reject { |key| obj.include?(key) }
      list << "keys of the last #{obj.capacity} lost: #{lost.inspect}" unless lost.empty?
      list << "active_size #{obj.active_size} outside 0..#{obj.capacity}" unless obj.active_size.between?(0, obj.capacity)
      list << "swaps went from #{@swaps} to #{obj.swaps}" unless obj.swaps >= @swaps && obj.swaps <= @swaps + size
      list
    end
  end

  # A ScalableBloomFilter and the keys added to it (no exact bit model: the
  # layer a key went into depends on what came before it). Until a union
  # (which counts its layers again from their bits), every layer but the
  # newest holds exactly its capacity.
  class ScalableHarness
    attr_reader :label, :obj, :keys, :count, :merged

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @merged = false
      keys.each { |key| add(key) }
    end

    def add(key)
      @keys << key
      @count += 1
    end

    def expected_include(key)
      keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def model_keys = keys

    def merged_with_itself
      @count *= 2
      @merged = true
    end

    def cleared
      @keys = []
      @count = 0
      @merged = false
    end

    def problems
      list = []
      list << "size #{obj.size} != #{count} adds" unless obj.size == count
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      layers = obj.layers
      list << "layer counts #{layers.map(&:count)} != distinct_count #{obj.distinct_count}" unless layers.sum(&:count) == obj.distinct_count
      list << "m #{obj.m} is not the layers' bits" unless layers.sum(&:m) == obj.m
      full = layers[0...-1].all? { |l| l.count == l.capacity }
      list << "a layer before the newest is not full: #{layers.map(&:count)}" unless merged || full
      list
    end
  end
end
