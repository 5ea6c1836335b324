# frozen_string_literal: true

# The fuzzers' engine: seeds and sizes, the Fuzzer base class (the run,
# the operation log a failure shows, checks, random keys) and Copies, for
# fuzzers that follow several instances of one object through dup, clone
# and freeze.
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
end
