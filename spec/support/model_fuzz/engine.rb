# frozen_string_literal: true

# The fuzzers' engine: seeds and sizes; the Fuzzer base class (the run,
# each operation drawn from the fuzzer's steps table, the operation log a
# failure shows, checks, random keys); Copies, for fuzzers that follow
# several instances of one object through dup, clone and freeze; and the
# operations the filters' fuzzers share (KeptKeys, FilterOps).
module ModelFuzz
  SEEDS = (ENV["FUZZ_SEEDS"] || "1,2,3,4,5").split(",").map { |s| Integer(s) }.freeze
  OPS = Integer(ENV.fetch("FUZZ_OPS", "3000"))
  # The fuzzers whose operations are cheap run this many times OPS.
  FAST = 2
  BAD_KEYS = [nil, true, false, 1.5, Float::NAN, [], {}, Object.new, 1r, Complex(1, 1)].freeze
  NON_INTEGERS = [nil, true, 1.5, Float::NAN, "1", :a, [], 1r].freeze

  class Fuzzer
    attr_reader :rng

    # The operations of a fuzzer and their shares of 100: step draws one
    # number below 100 and takes them in this order.
    def self.steps(shares)
      raise ArgumentError, "#{name}: the shares add up to #{shares.values.sum}, not 100" unless shares.values.sum == 100

      const_set(:STEPS, shares.freeze)
    end

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

    def step
      roll = rng.rand(100)
      operation, = self.class::STEPS.find { |_, share| (roll -= share).negative? }
      send(operation)
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

    # The instance's model beside another object: each part copied.
    def copied(inst, obj) = inst.class.new(obj, *inst.to_a.drop(1).map(&:dup))

    def op_freeze
      candidates = @insts.drop(1).reject { |inst| inst.obj.frozen? }
      return if candidates.empty?

      inst = pick(candidates)
      log :freeze, @insts.index(inst)
      check(inst.obj.freeze.equal?(inst.obj) && inst.obj.frozen?) { "freeze did not freeze" }
      full_check(inst)
    end

    # dup or clone: a copy equal to its original both ways, with its shape
    # and contents (the fuzzer's same_contents?), frozen only as a clone of
    # a frozen one; it joins the instances with a copy of the model.
    def op_dup
      inst = pick(@insts)
      via = pick(%i[dup clone])
      log via, @insts.index(inst)
      original = inst.obj
      copy = original.public_send(via)
      check(!copy.equal?(original) && copy == original && original == copy && copy.eql?(original) && copy.hash == original.hash) do
        "#{via} is not equal to its original"
      end
      check(same_contents?(copy, inst)) { "#{via} differs from its original in shape or contents" }
      check(copy.frozen? == (via == :clone && original.frozen?)) do
        "#{via} of a #{original.frozen? ? 'frozen' : 'live'} original has frozen? #{copy.frozen?}"
      end
      add_instance(copied(inst, copy))
    end

    def op_check = full_check(pick(@insts))
    def final_check = @insts.each { |inst| full_check(inst) }
  end

  LOOKUPS = %i[include? []].freeze
  BATCHES = %i[add_all add_new].freeze

  # For the fuzzers of filters whose instances keep every key added (a Hash
  # by FilterKey.id in inst.keys).
  module KeptKeys
    def held?(inst, key) = inst.keys.key?(FilterKey.id(key))

    # The instance's size is its adds, and it finds every key it holds.
    def check_kept(inst)
      f = inst.obj
      check(f.size == inst.adds) { "size #{f.size} != #{inst.adds} adds" }
      missing = inst.keys.values.reject { |key| f.include?(key) }
      check(missing.empty?) { "false negatives: #{missing.first(5).map { |k| show(k) }.join(', ')}" }
    end

    # What an exact model says include?(key) is; nil without one.
    def exact_include(_inst, _key) = nil

    # include? or []: true for every key the instance holds; for one the
    # exact model knows, what it says.
    def op_include
      inst = pick(@insts)
      key = !inst.keys.empty? && rng.rand(2).zero? ? pick(inst.keys.values) : pick(@pool)
      via = pick(LOOKUPS)
      log via, @insts.index(inst), key
      result = inst.obj.public_send(via, key)
      check([true, false].include?(result)) { "#{via} returned #{result.inspect}" }
      check(result || !held?(inst, key)) { "false negative for #{show(key)}" }
      expected = exact_include(inst, key)
      return if expected.nil?

      check(result == expected) { "#{via}(#{show(key)}) is #{result}, the exact model says #{expected}" }
    end
  end

  # What the filters' fuzzers check alike: keys of no filter's kind, writes
  # to a frozen filter.
  module FilterOps
    # One of BAD_KEYS to one of the class's BAD_KEY_CALLS (in a batch, after
    # a good key): TypeError, or FrozenError for a write to a frozen
    # instance, and no change (unchanged? adds the fuzzer's own counts).
    def op_bad_key
      inst = pick(@insts)
      bad = pick(BAD_KEYS)
      via = pick(self.class::BAD_KEY_CALLS)
      arg = BATCHES.include?(via) ? [pick(@pool), bad] : bad
      log via, @insts.index(inst), arg
      before = inst.obj.dup
      write = !LOOKUPS.include?(via)
      allowed = write && inst.obj.frozen? ? [FrozenError, TypeError] : [TypeError]
      expect_raise(allowed, "#{via}(#{show(arg)})") { inst.obj.public_send(via, arg) }
      check(inst.obj == before && unchanged?(inst)) { "#{via}(#{show(arg)}) raised but changed the filter" }
    end

    # Each of the class's FROZEN_WRITES ({ what => ->(filter, copy before,
    # *frozen_write_args) }) on a frozen instance raises FrozenError and
    # changes nothing; after_frozen_write checks the instance further.
    def op_frozen_write
      inst = pick(frozen_insts) or return
      before = inst.obj.dup
      args = frozen_write_args(inst)
      log :frozen_write, @insts.index(inst), *args
      self.class::FROZEN_WRITES.each do |what, write|
        expect_raise([FrozenError], "#{what} on a frozen filter") { write.call(inst.obj, before, *args) }
      end
      check(inst.obj == before && unchanged?(inst)) { "a refused write changed a frozen filter" }
      after_frozen_write(inst)
    end

    # A key, and a position for the writes to the filter's cells.
    def frozen_write_args(inst) = [pick(@pool), rng.rand(inst.obj.m)]
    def after_frozen_write(inst) = full_check(inst)
  end
end
