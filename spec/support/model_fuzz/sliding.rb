# frozen_string_literal: true

module ModelFuzz
  # SlidingBloomFilter against a Hash of each key's last add time, on a
  # clock the fuzzer drives (small steps, a generation's window, jumps past
  # every ttl, none at all): a key added within ttl is always found; every
  # key the model holds is found until ttl after its add; at most g + 1
  # generations live; size the adds. Copies read the same clock; a dump
  # loaded on it is equal, and holds the same keys; a frozen copy's clock
  # stands still, so it finds what was live when it froze.
  class SlidingFuzz < Fuzzer
    include Copies
    include FilterOps

    # keys: FilterKey.id => [key, time of its last add]; frozen_at: a frozen
    # instance's time.
    Inst = Struct.new(:obj, :keys, :adds, :frozen_at)

    steps op_add: 30, op_include: 20, op_batch: 10, op_tick: 15, op_dup: 5, op_freeze: 2, op_frozen_write: 3,
          op_bad_key: 5, op_dump: 5, op_clear: 1, op_check: 4
    BAD_KEY_CALLS = %i[add << add? include? [] add_all add_new].freeze
    FROZEN_WRITES = {
      "add" => ->(f, _, key) { f.add(key) },
      "add?" => ->(f, _, key) { f.add?(key) },
      "add_all" => ->(f, _, key) { f.add_all([key]) },
      "merge!" => ->(f, before, _) { f.merge!(before) },
      "clear" => ->(f, _, _) { f.clear }
    }.freeze

    def setup
      @now = rng.rand(-1000.0..1000.0)
      @ttl = pick([0.5, 3.0, 60.0, 1e4])
      kw = { ttl: @ttl, error_rate: pick([0.1, 0.01, 0.001]), generations: rng.rand(1..8),
             first_size: pick([64, 100, 1000]), seed: rng.rand(2**32), clock: -> { @now } }
      log :new, kw.except(:clock)
      @insts = [Inst.new(Bloomc::SlidingBloomFilter.new(**kw), {}, 0, nil)]
      @pool = key_pool(400)
    end

    def life = @ttl * (1 + (1.0 / @insts[0].obj.generations))
    def unchanged?(inst) = inst.obj.size == inst.adds
    def frozen_write_args(_inst) = [pick(@pool)]
    # (== compares the generations; a copy of a frozen one moves on with the clock)
    def same_contents?(copy, inst) = copy.size == inst.obj.size

    # A copy is live, whatever its original was.
    def copied(inst, obj) = super.tap { |copy| copy.frozen_at = nil unless obj.frozen? }

    # The time an instance answers at: the clock's, or its time when frozen.
    def now_of(inst) = inst.frozen_at || @now

    # Keys every instance must find: added less than ttl before its time.
    def live(inst) = inst.keys.values.select { |_, t| now_of(inst) - t < @ttl }

    def remember(inst, key)
      inst.adds += 1
      inst.keys[FilterKey.id(key)] = [key, @now]
    end

    def op_tick
      step = case rng.rand(6)
             when 0 then 0.0
             when 1 then @ttl / 10 * rng.rand
             when 2 then @ttl / @insts[0].obj.generations
             when 3 then life + rng.rand
             else @ttl * rng.rand
             end
      @now += step
      log :tick, step
    end

    def op_add
      inst = pick(writable)
      key = pick(@pool)
      via = pick(%i[add << add?])
      log via, @insts.index(inst), key
      was_live = live(inst).any? { |k, _| FilterKey.id(k) == FilterKey.id(key) }
      result = inst.obj.public_send(via, key)
      if via == :add?
        check(result.nil? || result.equal?(inst.obj)) { "add? returned #{result.inspect}" }
        check(!was_live || result.nil?) { "add? of #{show(key)}, added within ttl, said it was new" }
      else
        check(result.equal?(inst.obj)) { "#{via} returned #{result.inspect}, not self" }
      end
      remember(inst, key)
      check(inst.obj.include?(key)) { "false negative right after adding #{show(key)}" }
    end

    def op_batch
      inst = pick(writable)
      keys = Array.new(rng.rand(0..30)) { pick(@pool) }
      via = pick(%i[add_all add_new include_all count_included])
      log via, @insts.index(inst), keys.size
      f = inst.obj
      case via
      when :include_all then check(f.include_all(keys) == keys.map { |k| f.include?(k) }) { "include_all differs from include?" }
      when :count_included then check(f.count_included(keys) == keys.count { |k| f.include?(k) }) { "count_included differs" }
      else
        f.public_send(via, keys)
        keys.each { |key| remember(inst, key) }
      end
    end

    def op_include
      inst = pick(@insts)
      pairs = live(inst)
      key, = !pairs.empty? && rng.rand(2).zero? ? pick(pairs) : [pick(@pool)]
      via = pick(LOOKUPS)
      log via, @insts.index(inst), key
      result = inst.obj.public_send(via, key)
      check([true, false].include?(result)) { "#{via} returned #{result.inspect}" }
      check(result || pairs.none? { |k, _| FilterKey.id(k) == FilterKey.id(key) }) do
        "false negative for #{show(key)}, added #{now_of(inst) - inst.keys[FilterKey.id(key)][1]} s ago (ttl #{@ttl})"
      end
    end

    # Loaded from a dump on the same clock: equal, and finding every live key.
    def op_dump
      inst = pick(@insts)
      log :dump, @insts.index(inst)
      loaded = Bloomc::SlidingBloomFilter.load(inst.obj.dump(compress: rng.rand(2).zero?), clock: -> { @now })
      check(loaded == inst.obj) { "a dump loads back unequal" }
      return if inst.frozen_at # its clock stood still; the loaded one reads the clock

      missing = live(inst).map(&:first).reject { |key| loaded.include?(key) }
      check(missing.empty?) { "the loaded filter misses #{missing.size} live keys" }
    end

    def op_clear
      inst = pick(writable)
      log :clear, @insts.index(inst)
      inst.obj.clear
      inst.keys.clear
      inst.adds = 0
      check(inst.obj.windows.empty? && inst.obj.m.zero?) { "clear left generations" }
    end

    def op_freeze
      super
      @insts.each { |inst| inst.frozen_at ||= @now if inst.obj.frozen? }
    end

    def full_check(inst)
      f = inst.obj
      check(f.size == inst.adds) { "size #{f.size} != #{inst.adds} adds" }
      windows = f.windows
      check(windows.size <= f.generations + 1) { "#{windows.size} generations alive, more than #{f.generations + 1}" }
      missing = live(inst).map(&:first).reject { |key| f.include?(key) }
      check(missing.empty?) { "false negatives: #{missing.first(3).map { |k| show(k) }.join(', ')}" }
    end
  end
end
