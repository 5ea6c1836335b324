# frozen_string_literal: true

require_relative "filter_key"
# Random operations against simple Ruby reference models, from fixed seeds.
# A failure names the fuzzer, the seed and the index of the failing operation
# and lists the operations before it; rerun one with
#   FUZZ_SEEDS=3 bundle exec rspec spec/bloomc/model_fuzz_spec.rb -e "seed 3"
module ModelFuzz
  SEEDS = (ENV["FUZZ_SEEDS"] || "1,2,3,4,5").split(",").map { |s| Integer(s) }.freeze
  OPS = Integer(ENV.fetch("FUZZ_OPS", "3000"))
  # The fuzzers whose operations are cheap run this many times OPS.
  FAST = 2
  BAD_KEYS = [nil, true, false, 1.5, Float::NAN, [], {}, Object.new, 1r, Complex(1, 1)].freeze
  NON_INTEGERS = [nil, true, 1.5, Float::NAN, "1", :a, [], 1r].freeze

  class Fuzzer
    attr_reader :rng

    def initialize(name, seed, ops = OPS)
      @name = name
      @seed = seed
      @ops = ops
      @rng = Random.new(seed)
      @recent = []
    end

    def run
      setup
      @ops.times do |i|
        @index = i
        step
      end
      @index = :final
      final_check
    rescue RSpec::Expectations::ExpectationNotMetError
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- report anything with its seed and op
      raise if e.is_a?(SignalException) || e.is_a?(SystemExit)

      fail!("unexpected #{e.class}: #{e.message}\n    #{e.backtrace.first(6).join("\n    ")}")
    end

    # Records an operation for the failure message (kept cheap: formatted only on failure).
    def log(*op)
      @recent << [@index, op]
      @recent.shift if @recent.size > 12
    end

    def fail!(message)
      ops = @recent.map { |i, op| "    ##{i}: #{op.map { |x| show(x) }.join(' ')}" }.join("\n")
      RSpec::Expectations.fail_with("#{@name}, seed #{@seed}, op #{@index}: #{message}\n  last operations:\n#{ops}")
    end

    def show(value)
      text = value.is_a?(Symbol) && value.to_s.match?(/\A[a-z_]+[?!=]?\z|\A(\[\]=?|<<)\z/) ? value.to_s : value.inspect
      text.size > 60 ? "#{text[0, 57]}..." : text
    end

    def check(condition)
      fail!(yield) unless condition
    end

    # The block must raise one of +classes+; returns the error.
    def expect_raise(classes, what)
      yield
    rescue RSpec::Expectations::ExpectationNotMetError
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException
      raise if e.is_a?(SignalException) || e.is_a?(SystemExit)

      check(classes.include?(e.class)) { "#{what} raised #{e.class} (#{e.message}), expected #{classes.join(' or ')}" }
      e
    else
      fail!("#{what} did not raise (expected #{classes.join(' or ')})")
    end

    def pick(list) = list.empty? ? nil : list[rng.rand(list.size)]

    # Keys of every kind: binary with NULs, multibyte, Symbols and their
    # Strings, Integers small, 64-bit and beyond, "42" beside 42.
    def random_key
      case rng.rand(8)
      when 0 then rng.bytes(rng.rand(0..12)).freeze
      when 1 then Array.new(rng.rand(0..6)) { pick(["a", "b", "e", "\u65e5", "\u672c", "\0"]) }.join.freeze
      when 2 then :"s#{rng.rand(60)}"
      when 3 then "s#{rng.rand(60)}".freeze
      when 4 then rng.rand(-1000..1000)
      when 5 then rng.rand(2**64) * pick([1, -1])
      when 6 then rng.rand(2**200) - 2**199
      else rng.rand(100).to_s.freeze
      end
    end

    def key_pool(size) = Array.new(size) { random_key }
  end

  # Instances of one kind sharing a history through dup/clone: index 0 is
  # never frozen, the others are copies that may be.
  module Copies
    MAX_INSTANCES = 6

    def writable = @insts.reject { |inst| inst.obj.frozen? }
    def frozen_insts = @insts.select { |inst| inst.obj.frozen? }

    def add_instance(inst)
      @insts.delete_at(rng.rand(1...@insts.size)) if @insts.size >= MAX_INSTANCES
      @insts << inst
    end

    def op_freeze
      candidates = @insts.drop(1).reject { |inst| inst.obj.frozen? }
      return if candidates.empty?

      inst = pick(candidates)
      log :freeze, @insts.index(inst)
      check(inst.obj.freeze.equal?(inst.obj) && inst.obj.frozen?) { "freeze did not freeze" }
      full_check(inst)
    end
  end

  # BloomFilter against the keys added (a Hash by key identity) and the add
  # count; for seed 0 also against its exact bits (BloomHelper.multi_hash
  # gives a seed-0 filter's positions).
  class BloomFuzz < Fuzzer
    include Copies

    Inst = Struct.new(:obj, :keys, :count, :exact)

    def initialize(name, seed, hash, ops: OPS)
      super(name, seed, ops)
      @hash = hash
    end

    def setup
      m = rng.rand(3).zero? ? rng.rand(1..8) : rng.rand(9..400)
      k = rng.rand(1..10)
      seed = @hash == :murmur3 && rng.rand(2) == 1 ? rng.rand(2**32) : 0
      log :new, m, k, seed, @hash
      filter = Bloomc::BloomFilter.new(m, k, seed: seed, hash: @hash)
      @insts = [Inst.new(filter, {}, 0, seed.zero? ? "0" * m : nil)]
      @pool = key_pool(300)
    end

    def step
      case rng.rand(100)
      when 0...35 then op_add
      when 35...65 then op_include
      when 65...71 then op_dup
      when 71...74 then op_freeze
      when 74...79 then op_frozen_write
      when 79...86 then op_bad_key
      when 86...91 then op_bits
      else full_check(pick(@insts))
      end
    end

    def positions(filter, key) = Bloomc::BloomHelper.multi_hash(key, filter.k, filter.m, hash: filter.hash_function)

    def op_add
      inst = pick(writable)
      key = pick(@pool)
      sibling = (@insts - [inst]).sample(random: rng)
      before = sibling&.obj&.dup
      via = pick(%i[add << add?])
      log via, @insts.index(inst), key
      # add? says whether a bit changed: the exact model knows, and a key
      # added before is never new.
      fresh = if inst.exact then positions(inst.obj, key).any? { |p| inst.exact[p] == "0" }
              elsif inst.keys.key?(FilterKey.id(key)) then false
              end
      result = inst.obj.public_send(via, key)
      inst.count += 1
      inst.keys[FilterKey.id(key)] = key
      positions(inst.obj, key).each { |p| inst.exact[p] = "1" } if inst.exact
      if via == :add?
        check(result.nil? || result.equal?(inst.obj)) { "add? returned #{result.inspect}, not self or nil" }
        check(fresh.nil? || fresh == result.equal?(inst.obj)) { "add? returned #{result.inspect} for a key #{fresh ? 'new' : 'present'}" }
      else
        check(result.equal?(inst.obj)) { "#{via} returned #{result.inspect}, not self" }
      end
      check(inst.obj.size == inst.count) { "size #{inst.obj.size} after #{inst.count} adds" }
      check(inst.obj.include?(key)) { "false negative right after adding #{show(key)}" }
      check(sibling.nil? || sibling.obj == before) { "adding to one copy changed another" }
    end

    def op_include
      inst = pick(@insts)
      key = !inst.keys.empty? && rng.rand(2).zero? ? pick(inst.keys.values) : pick(@pool)
      via = pick(%i[include? []])
      log via, @insts.index(inst), key
      result = inst.obj.public_send(via, key)
      check([true, false].include?(result)) { "#{via} returned #{result.inspect}" }
      check(result || !inst.keys.key?(FilterKey.id(key))) { "false negative for #{show(key)}" }
      return unless inst.exact

      expected = positions(inst.obj, key).all? { |p| inst.exact[p] == "1" }
      check(result == expected) { "#{via}(#{show(key)}) is #{result}, the exact model says #{expected}" }
    end

    def op_dup
      inst = pick(@insts)
      via = pick(%i[dup clone])
      log via, @insts.index(inst)
      copy = inst.obj.public_send(via)
      f = inst.obj
      check(!copy.equal?(f) && copy == f && f == copy && copy.eql?(f) && copy.hash == f.hash) { "#{via} is not equal to its original" }
      same = %i[m k seed hash_function size].all? { |a| copy.public_send(a) == f.public_send(a) }
      check(same && copy.bits.to_s == f.bits.to_s) { "#{via} differs from its original in shape or bits" }
      check(copy.frozen? == (via == :clone && f.frozen?)) { "#{via} of a #{f.frozen? ? 'frozen' : 'live'} filter has frozen? #{copy.frozen?}" }
      add_instance(Inst.new(copy, inst.keys.dup, inst.count, inst.exact&.dup))
    end

    def op_frozen_write
      inst = pick(frozen_insts) or return
      before = inst.obj.dup
      key = pick(@pool)
      pos = rng.rand(inst.obj.m)
      log :frozen_write, @insts.index(inst), key, pos
      expect_raise([FrozenError], "add on a frozen filter") { inst.obj.add(key) }
      expect_raise([FrozenError], "<< on a frozen filter") { inst.obj << key }
      expect_raise([FrozenError], "bits.set on a frozen filter") { inst.obj.bits.set(pos) }
      expect_raise([FrozenError], "bits[]= on a frozen filter") { inst.obj.bits[pos] = 0 }
      check(inst.obj == before) { "a refused write changed a frozen filter" }
      inst.keys.values.first(5).each { |k| check(inst.obj.include?(k)) { "frozen filter lost #{show(k)}" } }
    end

    def op_bad_key
      inst = pick(@insts)
      bad = pick(BAD_KEYS)
      via = pick(%i[add << include? []])
      log via, @insts.index(inst), bad
      before = inst.obj.dup
      write = %i[add <<].include?(via)
      allowed = write && inst.obj.frozen? ? [FrozenError, TypeError] : [TypeError]
      expect_raise(allowed, "#{via}(#{show(bad)})") { inst.obj.public_send(via, bad) }
      check(inst.obj == before && inst.obj.size == inst.count) { "#{via}(#{show(bad)}) raised but changed the filter" }
    end

    def op_bits
      inst = pick(@insts)
      log :bits, @insts.index(inst)
      bits = inst.obj.bits
      check(bits.size == inst.obj.m) { "bits.size #{bits.size} != m #{inst.obj.m}" }
      check(bits.total_set <= [inst.count * inst.obj.k, inst.obj.m].min) { "more bits set than k per add" }
      check(inst.exact.nil? || bits.to_s == inst.exact) { "bits #{bits} != model #{inst.exact}" }
      copy = bits.dup
      pos = rng.rand(inst.obj.m)
      before = inst.obj.dup
      copy[pos] = 1 - copy[pos]
      check(inst.obj == before) { "writing to a dup of #bits changed the filter" }
    end

    def full_check(inst)
      f = inst.obj
      check(f.size == inst.count) { "size #{f.size} != #{inst.count} adds" }
      missing = inst.keys.values.reject { |key| f.include?(key) }
      check(missing.empty?) { "false negatives: #{missing.first(5).map { |k| show(k) }.join(', ')}" }
      check(inst.exact.nil? || f.bits.to_s == inst.exact) { "bits differ from the exact model" }
    end

    def final_check = @insts.each { |inst| full_check(inst) }
  end

  # BitField and BitBucketField against an Array of their values.
  class FieldFuzz < Fuzzer
    include Copies

    Inst = Struct.new(:obj, :model)

    def initialize(name, seed, buckets:, ops: OPS)
      super(name, seed, ops)
      @buckets = buckets
    end

    def setup
      size = rng.rand(2).zero? ? pick([1, 2, 7, 8, 9, 63, 64, 65]) : rng.rand(1..300)
      if @buckets
        @width = pick([1, 2, 3, 4, 7, 8, 31, 32, rng.rand(1..32)])
        @max = 2**@width - 1
        log :new, @width, size
        field = Bloomc::BitBucketField.new(@width, size)
      else
        @max = 1
        log :new, size
        field = Bloomc::BitField.new(size)
      end
      @insts = [Inst.new(field, Array.new(size, 0))]
      @hot = Array.new(3) { rng.rand(size) } # positions hammered to reach saturation
    end

    def size = @insts[0].model.size

    def position = rng.rand(4).zero? ? pick(@hot) : rng.rand(size)

    def value
      @buckets ? pick([0, 1, @max, @max - 1, rng.rand(0..@max)].map { |v| v.clamp(0, @max) }) : pick([0, 1, true, false])
    end

    def step
      case rng.rand(100)
      when 0...35 then op_write
      when 35...60 then op_read
      when 60...67 then op_whole
      when 67...75 then op_bad_position
      when 75...80 then op_bad_value
      when 80...85 then op_dup
      when 85...88 then op_freeze
      when 88...92 then op_frozen_write
      when 92...96 then op_compare
      else full_check(pick(@insts))
      end
    end

    def write_ops = @buckets ? %i[[]= set inc dec inc dec] : %i[[]= set unset]

    def op_write
      inst = pick(writable)
      via = pick(write_ops)
      pos = position
      f = inst.obj
      m = inst.model
      case via
      when :[]=, :set
        if via == :set && !@buckets
          log :set, @insts.index(inst), pos
          check(f.set(pos).equal?(f)) { "set did not return self" }
          m[pos] = 1
        else
          v = value
          log via, @insts.index(inst), pos, v
          check(f.public_send(via, pos, v).equal?(v)) { "#{via} did not return its value" }
          m[pos] = [true, 1].include?(v) ? 1 : (v == false ? 0 : v)
        end
      when :unset
        log :unset, @insts.index(inst), pos
        check(f.unset(pos).equal?(f)) { "unset did not return self" }
        m[pos] = 0
      when :inc, :dec
        log via, @insts.index(inst), pos
        m[pos] = via == :inc ? [m[pos] + 1, @max].min : [m[pos] - 1, 0].max
        result = f.public_send(via, pos)
        check(result == m[pos]) { "#{via}(#{pos}) returned #{result}, the saturating model says #{m[pos]}" }
      end
      check(f[pos] == m[pos]) { "after #{via}(#{pos}) the value is #{f[pos]}, the model says #{m[pos]}" }
    end

    def op_read
      inst = pick(@insts)
      pos = position
      via = pick(@buckets ? %i[[] get zero?] : %i[[] get include? zero?])
      log via, @insts.index(inst), pos
      result = inst.obj.public_send(via, pos)
      v = inst.model[pos]
      expected = { "[]": v, get: v, include?: v == 1, zero?: v.zero? }.fetch(via)
      check(result == expected) { "#{via}(#{pos}) is #{result.inspect}, the model says #{expected.inspect}" }
    end

    def rendered(model, base)
      return model.join unless @buckets

      model.map { |v| base == 10 ? v.to_s : v.to_s(2).rjust(@width, "0") }.join(" ")
    end

    def op_whole
      inst = pick(@insts)
      f = inst.obj
      m = inst.model
      via = pick(%i[total_set to_s each enum])
      log via, @insts.index(inst)
      case via
      when :total_set
        check(f.total_set == m.count(&:positive?)) { "total_set #{f.total_set} != #{m.count(&:positive?)}" }
      when :to_s
        if @buckets
          base = pick([nil, 2, 10])
          s = base ? f.to_s(base) : f.to_s
          check(s == rendered(m, base || 2)) { "to_s(#{base.inspect}) is #{s.inspect}, the model says #{rendered(m, base || 2).inspect}" }
        else
          check(f.to_s == rendered(m, 2)) { "to_s #{f} != #{rendered(m, 2)}" }
        end
      when :each
        seen = []
        check(f.each { |v| seen << v }.equal?(f)) { "each did not return self" }
        check(seen == m) { "each yielded #{seen.inspect}, the model says #{m.inspect}" }
      when :enum
        e = f.each
        check(e.size == m.size && e.to_a == m && f.to_a == m) { "each's Enumerator disagrees with the model" }
      end
    end

    def bad_position
      case rng.rand(3)
      when 0 then pick([-1, -size, size, size + 1, size + rng.rand(1000), 2**64, -(2**64), 2**200])
      else pick(NON_INTEGERS)
      end
    end

    def op_bad_position
      inst = pick(@insts)
      pos = bad_position
      via = pick(@buckets ? %i[[] get zero? []= set inc dec] : %i[[] get include? zero? []= set unset])
      args = %i[[]= set].include?(via) && (@buckets || via == :[]=) ? [pos, @buckets ? 0 : 1] : [pos]
      log via, @insts.index(inst), *args
      reason = pos.is_a?(Integer) ? IndexError : TypeError
      write = %i[[]= set unset inc dec].include?(via)
      allowed = write && inst.obj.frozen? ? [FrozenError, reason] : [reason]
      before = inst.obj.dup
      expect_raise(allowed, "#{via}(#{args.map { |a| show(a) }.join(', ')})") { inst.obj.public_send(via, *args) }
      check(inst.obj == before && inst.obj.to_a == inst.model) { "a refused #{via} changed the field" }
    end

    def op_bad_value
      inst = pick(@insts)
      pos = rng.rand(size)
      v = if @buckets
            pick([@max + 1, -1, 2**64, -(2**64), 2**32, *NON_INTEGERS])
          else
            pick([2, -1, 2**64, *(NON_INTEGERS - [true])])
          end
      via = @buckets ? pick(%i[[]= set]) : :[]=
      log via, @insts.index(inst), pos, v
      # README: ArgumentError for out-of-range bucket values, TypeError for
      # non-Integers; the BitField call-seq: ArgumentError for any other value.
      allowed = if v.is_a?(Integer) || !@buckets then [ArgumentError] + (v.is_a?(Integer) ? [] : [TypeError])
                else [TypeError]
                end
      allowed += [FrozenError] if inst.obj.frozen?
      before = inst.obj.dup
      expect_raise(allowed, "#{via}(#{pos}, #{show(v)})") { inst.obj.public_send(via, pos, v) }
      check(inst.obj == before && inst.obj.to_a == inst.model) { "a refused #{via}(#{pos}, #{show(v)}) changed the field" }
    end

    def op_dup
      inst = pick(@insts)
      via = pick(%i[dup clone])
      log via, @insts.index(inst)
      copy = inst.obj.public_send(via)
      check(!copy.equal?(inst.obj) && copy == inst.obj && copy.eql?(inst.obj) && copy.hash == inst.obj.hash) { "#{via} is not equal to its original" }
      check(copy.to_a == inst.model && copy.size == size) { "#{via} has other values than its original" }
      check(copy.frozen? == (via == :clone && inst.obj.frozen?)) { "#{via} has frozen? #{copy.frozen?}" }
      add_instance(Inst.new(copy, inst.model.dup))
    end

    def op_frozen_write
      inst = pick(frozen_insts) or return
      pos = rng.rand(size)
      via = pick(write_ops)
      args = %i[[]= set].include?(via) && (@buckets || via == :[]=) ? [pos, @buckets ? 0 : 1] : [pos]
      log :frozen, via, @insts.index(inst), *args
      expect_raise([FrozenError], "#{via} on a frozen field") { inst.obj.public_send(via, *args) }
      full_check(inst)
    end

    def op_compare
      a = pick(@insts)
      b = pick(@insts)
      log :==, @insts.index(a), @insts.index(b)
      equal = a.model == b.model
      check((a.obj == b.obj) == equal && a.obj.eql?(b.obj) == equal) { "== is #{a.obj == b.obj}, the models are #{'not ' unless equal}equal" }
      check(!equal || a.obj.hash == b.obj.hash) { "equal fields with different hashes" }
    end

    def full_check(inst)
      f = inst.obj
      check(f.size == inst.model.size) { "size #{f.size} != #{inst.model.size}" }
      check(f.to_a == inst.model) { "values #{f.to_a.inspect} != model #{inst.model.inspect}" }
      check(f.total_set == inst.model.count(&:positive?)) { "total_set #{f.total_set} != model #{inst.model.count(&:positive?)}" }
      check(f.to_s == rendered(inst.model, 2)) { "to_s #{f.to_s.inspect} != #{rendered(inst.model, 2).inspect}" }
    end

    def final_check = @insts.each { |inst| full_check(inst) }
  end

  # ContinuousBloomFilter with ttl 0, ticked by inc_time_slot, against a Hash
  # of key => tick of its last add; for seed 0 also against its exact buckets
  # (a Hash position => slot of the non-empty ones).
  class ContinuousFuzz < Fuzzer
    include Copies

    Inst = Struct.new(:obj, :last_add, :ticks, :quiet_since, :exact)

    def initialize(name, seed, large:, ops: OPS)
      super(name, seed, ops)
      @large = large
    end

    def setup
      m = @large ? rng.rand(1_000..60_000) : rng.rand(1..64)
      k = rng.rand(1..10)
      hash = pick(%i[murmur3 fnv1a])
      seed = hash == :murmur3 && rng.rand(2) == 1 ? rng.rand(2**32) : 0
      log :new, m, k, 0, seed, hash
      filter = Bloomc::ContinuousBloomFilter.new(m, k, 0, seed: seed, hash: hash)
      @insts = [Inst.new(filter, {}, 0, 0, seed.zero? ? {} : nil)]
      @pool = key_pool(@large ? 400 : 60)
    end

    def slot(ticks) = ticks % 15 + 1
    def live_slots(ticks) = ([ticks - 2, 0].max..ticks).map { |t| slot(t) }
    def positions(f, key) = Bloomc::BloomHelper.multi_hash(key, f.k, f.m, hash: f.hash_function)

    def step
      case rng.rand(100)
      when 0...30 then op_add
      when 30...52 then op_include_live
      when 52...60 then op_include_any
      when 60...76 then op_tick
      when 76...79 then op_quiet
      when 79...84 then op_dup
      when 84...86 then op_freeze
      when 86...90 then op_frozen_write
      when 90...95 then op_bad_key
      else full_check(pick(@insts))
      end
    end

    def op_add
      inst = pick(writable)
      key = pick(@pool)
      via = pick(%i[add <<])
      sibling = (@insts - [inst]).sample(random: rng)
      before = sibling&.obj&.dup
      log via, @insts.index(inst), key
      check(inst.obj.public_send(via, key).equal?(inst.obj)) { "#{via} did not return self" }
      inst.last_add[FilterKey.id(key)] = [key, inst.ticks]
      inst.quiet_since = inst.ticks
      positions(inst.obj, key).each { |p| inst.exact[p] = slot(inst.ticks) } if inst.exact
      check(inst.obj.include?(key)) { "false negative right after adding #{show(key)}" }
      check(sibling.nil? || (sibling.obj == before && sibling.obj.ticks == sibling.ticks)) { "adding to one copy changed another" }
    end

    def op_include_live
      inst = pick(@insts)
      live = inst.last_add.values.select { |_, t| inst.ticks - t < 3 }
      return op_include_any if live.empty?

      key, added = pick(live)
      via = pick(%i[include? []])
      log via, @insts.index(inst), key
      check(inst.obj.public_send(via, key) == true) do
        "false negative: #{show(key)} added at tick #{added}, now tick #{inst.ticks} (within the TTL)"
      end
    end

    def op_include_any
      inst = pick(@insts)
      key = pick(@pool)
      via = pick(%i[include? []])
      log via, @insts.index(inst), key
      result = inst.obj.public_send(via, key)
      check([true, false].include?(result)) { "#{via} returned #{result.inspect}" }
      entry = inst.last_add[FilterKey.id(key)]
      check(result || !entry || inst.ticks - entry[1] >= 3) { "false negative for #{show(key)} within the TTL" }
      check(!result || inst.ticks - inst.quiet_since < 3) { "#{show(key)} present #{inst.ticks - inst.quiet_since} ticks after the last add" }
      return unless inst.exact

      expected = positions(inst.obj, key).all? { |p| inst.exact.key?(p) }
      check(result == expected) { "#{via}(#{show(key)}) is #{result}, the exact model says #{expected}" }
    end

    def tick(inst)
      sibling = (@insts - [inst]).sample(random: rng)
      before = sibling && [sibling.obj.dup, sibling.obj.ticks]
      result = inst.obj.inc_time_slot
      inst.ticks += 1
      check(result == slot(inst.ticks)) { "inc_time_slot returned #{result.inspect}, expected slot #{slot(inst.ticks)}" }
      check(inst.obj.ticks == inst.ticks) { "ticks #{inst.obj.ticks} != #{inst.ticks}" }
      if inst.exact
        live = live_slots(inst.ticks)
        inst.exact.select! { |_, s| live.include?(s) }
        check(inst.obj.buckets.total_set == inst.exact.size) { "#{inst.obj.buckets.total_set} buckets set, the exact model has #{inst.exact.size}" }
      end
      check(before.nil? || (sibling.obj == before[0] && sibling.obj.ticks == before[1])) { "ticking one copy changed another" }
      check_buckets(inst)
    end

    def op_tick
      inst = pick(writable)
      log :inc_time_slot, @insts.index(inst)
      tick(inst)
      check_quiet(inst)
    end

    # 3 to 5 ticks with no add: every key is gone.
    def op_quiet
      inst = pick(writable)
      n = rng.rand(3..5)
      log :quiet, @insts.index(inst), n
      n.times { tick(inst) }
      check_quiet(inst)
      check_buckets(inst, full: true)
    end

    def check_quiet(inst)
      return if inst.ticks - inst.quiet_since < 3

      set = inst.obj.buckets.total_set
      check(set.zero?) { "#{set} buckets still set #{inst.ticks - inst.quiet_since} ticks after the last add" }
      present = inst.last_add.values.map(&:first).select { |key| inst.obj.include?(key) }
      check(present.empty?) { "keys still present after 3+ ticks with no add: #{present.first(5).map { |k| show(k) }.join(', ')}" }
    end

    # Buckets hold 0 or one of the (up to) 3 live slots, checked on every
    # bucket (searching to_s(2), built in C) for small m, and for large m at
    # one call in 20 and when asked (full). For seed 0 the buckets are exactly the
    # model's, checked on the model's non-empty buckets and the count of
    # non-empty ones, which together pin down every bucket.
    def check_buckets(inst, full: false)
      buckets = inst.obj.buckets
      set = buckets.total_set
      if inst.exact
        check(set == inst.exact.size) { "#{set} buckets set, the exact model has #{inst.exact.size}" }
        wrong = inst.exact.find { |pos, s| buckets[pos] != s }
        check(wrong.nil?) { "bucket #{wrong[0]} is #{buckets[wrong[0]]}, the exact model says #{wrong[1]}" }
      else
        recent = inst.last_add.count { |_, (_, t)| inst.ticks - t < 3 }
        check(set <= recent * inst.obj.k) { "#{set} buckets set by #{recent} keys added within the TTL" }
      end
      @bucket_checks = (@bucket_checks || 0) + 1
      return unless full || !@large || (@bucket_checks % 20).zero?

      # Each 4-character run of digits in to_s(2) is exactly one bucket.
      text = buckets.to_s(2)
      stale = ((1..15).to_a - live_slots(inst.ticks)).select { |v| text.include?(format("%04b", v)) }
      check(stale.empty?) { "buckets hold slots #{stale} at tick #{inst.ticks} (live #{live_slots(inst.ticks)})" }
    end

    def op_dup
      inst = pick(@insts)
      via = pick(%i[dup clone])
      log via, @insts.index(inst)
      f = inst.obj
      copy = f.public_send(via)
      check(!copy.equal?(f) && copy == f && copy.eql?(f) && copy.hash == f.hash) { "#{via} is not equal to its original" }
      same = %i[m k ttl seed hash_function ticks].all? { |a| copy.public_send(a) == f.public_send(a) }
      check(same && copy.buckets == f.buckets) { "#{via} differs from its original" }
      check(copy.frozen? == (via == :clone && f.frozen?) && !copy.timer_running?) { "#{via} has frozen? #{copy.frozen?}" }
      add_instance(Inst.new(copy, inst.last_add.dup, inst.ticks, inst.quiet_since, inst.exact&.dup))
    end

    def op_frozen_write
      inst = pick(frozen_insts) or return
      f = inst.obj
      before = f.dup
      key = pick(@pool)
      pos = rng.rand(f.m)
      log :frozen_write, @insts.index(inst), key, pos
      expect_raise([FrozenError], "add on a frozen filter") { f.add(key) }
      expect_raise([FrozenError], "<< on a frozen filter") { f << key }
      expect_raise([FrozenError], "inc_time_slot on a frozen filter") { f.inc_time_slot }
      expect_raise([FrozenError], "buckets[]= on a frozen filter") { f.buckets[pos] = 0 }
      expect_raise([FrozenError], "buckets.inc on a frozen filter") { f.buckets.inc(pos) }
      check(f == before && f.ticks == inst.ticks) { "a refused write changed a frozen filter" }
      full_check(inst)
    end

    def op_bad_key
      inst = pick(@insts)
      bad = pick(BAD_KEYS)
      via = pick(%i[add << include? []])
      log via, @insts.index(inst), bad
      before = inst.obj.dup
      allowed = %i[add <<].include?(via) && inst.obj.frozen? ? [FrozenError, TypeError] : [TypeError]
      expect_raise(allowed, "#{via}(#{show(bad)})") { inst.obj.public_send(via, bad) }
      check(inst.obj == before && inst.obj.ticks == inst.ticks) { "#{via}(#{show(bad)}) raised but changed the filter" }
    end

    def full_check(inst)
      f = inst.obj
      check(f.ticks == inst.ticks) { "ticks #{f.ticks} != #{inst.ticks}" }
      lost = inst.last_add.values.select { |_, t| inst.ticks - t < 3 }.map(&:first).reject { |key| f.include?(key) }
      check(lost.empty?) { "false negatives within the TTL: #{lost.first(5).map { |k| show(k) }.join(', ')}" }
      check_quiet(inst)
      check_buckets(inst)
    end

    def final_check
      @insts.each do |inst|
        full_check(inst)
        check_buckets(inst, full: true)
      end
    end
  end

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
