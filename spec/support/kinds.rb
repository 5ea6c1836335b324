# frozen_string_literal: true

# Every filter kind the specs build, in one list: the name the specs print,
# its class and the keywords that make it that kind. A spec picks the kinds
# it covers by name and builds each at its own size, with keywords of its own
# on top (Kinds.sized, Kinds.plain), so that a new kind is added here once.
module Kinds
  # plain: it can be built from m and k (Kinds.plain); built_once: from all
  # its keys at once (BinaryFuseFilter.build), never added to.
  Kind = Struct.new(:name, :klass, :options, :positional, :plain, :built_once, keyword_init: true) do
    def plain? = plain != false
    def built_once? = built_once == true
  end

  LIST = [
    Kind.new(name: "BloomFilter", klass: Bloomc::BloomFilter),
    Kind.new(name: "BloomFilter (fnv1a)", klass: Bloomc::BloomFilter, options: { hash: :fnv1a }),
    Kind.new(name: "BloomFilter (murmur3_mixed)", klass: Bloomc::BloomFilter, options: { hash: :murmur3_mixed }),
    Kind.new(name: "BlockedBloomFilter", klass: Bloomc::BlockedBloomFilter),
    # plain form: new(m, k, ttl)
    Kind.new(name: "ContinuousBloomFilter", klass: Bloomc::ContinuousBloomFilter, options: { ttl: 0 }, positional: :ttl),
    Kind.new(name: "CountingBloomFilter", klass: Bloomc::CountingBloomFilter),
    Kind.new(name: "SpectralBloomFilter (MI)", klass: Bloomc::SpectralBloomFilter),
    Kind.new(name: "SpectralBloomFilter (RM)", klass: Bloomc::SpectralBloomFilter, options: { algorithm: :rm }),
    Kind.new(name: "BitwiseBloomFilter", klass: Bloomc::BitwiseBloomFilter),
    # plain form: new(m, k, d)
    Kind.new(name: "StableBloomFilter", klass: Bloomc::StableBloomFilter, positional: :d),
    Kind.new(name: "A2BloomFilter", klass: Bloomc::A2BloomFilter),
    Kind.new(name: "ScalableBloomFilter", klass: Bloomc::ScalableBloomFilter),
    Kind.new(name: "CuckooFilter", klass: Bloomc::CuckooFilter, plain: false),
    Kind.new(name: "BinaryFuseFilter", klass: Bloomc::BinaryFuseFilter, plain: false, built_once: true),
    # sized: capacity is its first_size; a ttl no spec outlives
    Kind.new(name: "SlidingBloomFilter", klass: Bloomc::SlidingBloomFilter, options: { ttl: 3600 }, plain: false)
  ].freeze
  BY_NAME = LIST.to_h { |kind| [kind.name, kind] }.freeze

  # For a subprocess's script, where this file is not loaded: defines
  # small_filter(name), a filter of every kind the format saves
  # (Bloomc::Format::KINDS' names), sized for 100 keys at 1% and holding "a".
  SMALL_FILTER_SOURCE = <<~RUBY
    def small_filter(name)
      klass = Bloomc.const_get(name)
      case name
      when :BinaryFuseFilter then return klass.build(%w[a b])
      when :ScalableBloomFilter then filter = klass.new(initial_capacity: 100, error_rate: 0.01)
      when :ContinuousBloomFilter then filter = klass.new(capacity: 100, error_rate: 0.01, ttl: 60)
      when :SlidingBloomFilter then filter = klass.new(ttl: 3600, error_rate: 0.01, first_size: 100)
      else filter = klass.new(capacity: 100, error_rate: 0.01)
      end
      filter.add("a")
    end
  RUBY

  module_function

  def fetch(name) = BY_NAME.fetch(name)

  # The kinds of these names, in this order (a name not in LIST raises).
  def pick(*names) = names.map { |name| fetch(name) }

  # Sized by capacity and error rate; a scalable filter takes the capacity
  # as its initial_capacity.
  def sized(name, capacity, error_rate, **extra)
    kind = fetch(name)
    size = case kind.klass.name
           when "Bloomc::ScalableBloomFilter" then { initial_capacity: capacity }
           when "Bloomc::SlidingBloomFilter" then { first_size: capacity.clamp(64, 2**40) }
           else { capacity: capacity }
           end
    kind.klass.new(error_rate: error_rate, **size, **(kind.options || {}), **extra)
  end

  # name => a lambda that builds it sized, for { name => its own keywords }.
  def sized_builders(capacity, error_rate, extras)
    extras.to_h { |name, extra| fetch(name) && [name, -> { sized(name, capacity, error_rate, **extra) }] }
  end

  # Built from m and k (and the kind's positional argument: a continuous
  # filter's ttl, a stable filter's d, from extra or the kind's options).
  def plain(name, m, k, **extra)
    kind = fetch(name)
    options = (kind.options || {}).merge(extra)
    rest = kind.positional ? [options.delete(kind.positional)] : []
    kind.klass.new(m, k, *rest, **options)
  end
end
