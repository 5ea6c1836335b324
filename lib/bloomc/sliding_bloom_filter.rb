# frozen_string_literal: true

module Bloomc
  # A Bloom filter of a sliding time window, which needs no capacity: a key
  # added is found for +ttl+ seconds and gone (but as a false positive) by
  # ttl * (1 + 1 / generations); the rate stays at most +error_rate+ at
  # every moment, however the stream swings; memory follows the window's
  # keys. Generations of ttl / generations seconds, each a scalable chain
  # of layers at error_rate / (generations + 1), sized from the one before
  # (docs/FILTERS.md, "The sliding filter", which says when a
  # PeriodicFilter is the better choice).
  #
  #   seen = Bloomc::SlidingBloomFilter.new(ttl: 3600, error_rate: 0.01)
  #   events.each { |e| handle(e) if seen.add?(e.id) } # each id once an hour
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # bits of every live generation and there is no k, add renews a key's ttl
  # (it goes into the newest generation), == compares the generations'
  # shapes, ages and cells (not when a dump was made), clear drops every
  # generation, and a frozen filter's clock stands still. | & and merge!
  # raise Bloomc::UnsupportedError: two filters' generations start at
  # other times.
  class SlidingBloomFilter < Filter
    include HashFunction
    include PartStats

    # Generations a ttl: a key lives at most ttl / 4 past its ttl.
    DEFAULT_GENERATIONS = 4
    # The keys the first generation's first layer takes.
    DEFAULT_FIRST_SIZE = 1024
    # A dump's last parameters, which say when it was made (docs/FORMAT.md):
    # two dumps that differ only there hold the same filter.
    SAVE_TIME_FIELDS = 2

    # ttl:: (Numeric) seconds a key lives, 0.01..2**32
    # error_rate:: (Float) the most it errs at any moment, 0 < error_rate < 1
    # generations:: (Integer) windows a ttl, 1..8 (more: ends nearer ttl)
    # first_size:: (Integer) keys the first window is sized for, 64..2**40
    # max_bytes:: (Integer, nil) 4096..2**62: an add that would take more
    #     raises Bloomc::CapacityError rather than lose a key
    # clock:: (#call, nil) seconds, read at each add and lookup; nil: monotonic
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default) or :murmur3
    # Raises:: ArgumentError, TypeError, RangeError for arguments out of range
    def initialize(ttl:, error_rate:, generations: DEFAULT_GENERATIONS, first_size: DEFAULT_FIRST_SIZE, max_bytes: nil,
                   clock: nil, seed: 0, hash: :murmur3_mixed)
      SlidingBloomFilter.check(ttl, error_rate, generations, first_size, max_bytes)
      setup(error_rate.to_f, ttl.to_f, generations, first_size, seed, HashFunction.murmur3_kind(hash, "sliding filter"),
            max_bytes || 0)
      self.clock = clock if clock
    end

    # @api private
    def self.check(ttl, error_rate, generations, first_size, max_bytes) # :nodoc:
      raise TypeError, "ttl must be a number, not #{ttl.class}" unless ttl.is_a?(Numeric) && ttl.real?
      raise ArgumentError, "ttl must be in 0.01..2**32 seconds, got #{ttl}" unless ttl.between?(0.01, 2**32)

      BloomHelper.send(:check_error_rate, error_rate)
      { "generations" => [generations, 1..8], "first_size" => [first_size, 64..(2**40)],
        "max_bytes" => [max_bytes || 4096, 4096..(2**62)] }.each do |name, (v, range)|
        raise TypeError, "#{name} must be an Integer, not #{v.class}" unless v.is_a?(Integer)
        raise ArgumentError, "#{name} must be in #{range}, got #{v}" unless range.cover?(v)
      end
    end

    # @api private
    def self.seconds(reading) # :nodoc:
      raise TypeError, "a clock reads seconds as a number, not #{reading.class}" unless reading.is_a?(Numeric) && reading.real?
      raise RangeError, "the clock read #{reading}, which is no time a filter takes" unless reading.abs <= 2**36 # NaN too

      reading.to_f
    end

    # A dump's filter (Filter#dump), its keys as old as when dumped plus the
    # wall time since; read by +clock+ from then on when given.
    def self.load(data, clock: nil)
      super(data).tap { |filter| filter.clock = clock if clock }
    end

    # The given clock, or nil for the monotonic one.
    attr_reader :clock

    # From now on the time is +clock+'s (nil: the monotonic clock's); every
    # key keeps the age it has.
    def clock=(clock)
      raise TypeError, "a clock responds to call, and #{clock.class} does not" unless clock.nil? || clock.respond_to?(:call)

      use_clock(clock && SlidingBloomFilter.seconds(clock.call))
      @clock = clock
    end

    # Seconds a key lives.
    def ttl = Sizing.float(export_fields[2])

    # The most it errs at any moment.
    def error_rate = Sizing.float(export_fields[1])

    # Windows a ttl.
    def generations = export_fields[3]

    # Keys the live generations took, a key counted in each it was added in.
    def distinct_count = tables.sum { |row| row[3] }

    # Always nil: there is none to pass.
    def capacity = nil

    # Always false (a generation grows when its keys outgrow it).
    def over_capacity? = false

    # The live generations, oldest first: [{age:, layers:, keys:}, ...],
    # age in seconds since the generation's first add.
    def windows
      tables.group_by { |row| row[5] }.values.map { |rows| { age: rows.first[6], layers: rows.size, keys: rows.sum { |row| row[3] } } }
    end

    private

    # The given clock's reading (for the hot methods too, from C).
    def read_clock = SlidingBloomFilter.seconds(@clock.call)

    # Batches and dumps first read a given clock; a batch catches up in C,
    # after its keys are hashed, so that a bad key leaves it as it was.
    def batch_add(...)
      now!
      super
    end

    def batch_lookup(...)
      now!
      super
    end

    def export_core
      now!
      super
    end

    def now!(advance: false) = tick(@clock && !frozen? ? read_clock : nil, advance)

    # The layers of the generations alive now.
    def tables
      now!(advance: true)
      layer_table
    end

    def part_fills = tables.map { |m, k, _, _, set| [set, m, k] }
    def shape = { ttl: ttl, error_rate: error_rate, generations: generations, seed: seed, hash_function: hash_function }
    def inspect_fields = "ttl=#{ttl} error_rate=#{error_rate} generations=#{windows.size}/#{generations + 1} size=#{size}"
  end
end
