# frozen_string_literal: true

module ModelFuzz
  # BloomFilter against the keys added (a Hash by key identity) and the add
  # count; for seed 0 also against its exact bits (BloomHelper.multi_hash
  # gives a seed-0 filter's positions).
  class BloomFuzz < Fuzzer
    include Copies
    include KeptKeys
    include FilterOps

    Inst = Struct.new(:obj, :keys, :adds, :exact)

    steps op_add: 35, op_include: 30, op_dup: 6, op_freeze: 3, op_frozen_write: 5, op_bad_key: 7, op_bits: 5, op_check: 9
    BAD_KEY_CALLS = %i[add << include? []].freeze
    FROZEN_WRITES = {
      "add" => ->(f, _, key, _) { f.add(key) },
      "<<" => ->(f, _, key, _) { f << key },
      "bits.set" => ->(f, _, _, pos) { f.bits.set(pos) },
      "bits[]=" => ->(f, _, _, pos) { f.bits[pos] = 0 }
    }.freeze

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

    def positions(filter, key) = Bloomc::BloomHelper.multi_hash(key, filter.k, filter.m, hash: filter.hash_function)

    def exact_include(inst, key) = inst.exact && positions(inst.obj, key).all? { |p| inst.exact[p] == "1" }
    def unchanged?(inst) = inst.obj.size == inst.adds

    def same_contents?(copy, inst)
      original = inst.obj
      %i[m k seed hash_function size].all? { |a| copy.public_send(a) == original.public_send(a) } && copy.bits.to_s == original.bits.to_s
    end

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
              elsif held?(inst, key) then false
              end
      result = inst.obj.public_send(via, key)
      inst.adds += 1
      inst.keys[FilterKey.id(key)] = key
      positions(inst.obj, key).each { |p| inst.exact[p] = "1" } if inst.exact
      if via == :add?
        check(result.nil? || result.equal?(inst.obj)) { "add? returned #{result.inspect}, not self or nil" }
        check(fresh.nil? || fresh == result.equal?(inst.obj)) { "add? returned #{result.inspect} for a key #{fresh ? 'new' : 'present'}" }
      else
        check(result.equal?(inst.obj)) { "#{via} returned #{result.inspect}, not self" }
      end
      check(inst.obj.size == inst.adds) { "size #{inst.obj.size} after #{inst.adds} adds" }
      check(inst.obj.include?(key)) { "false negative right after adding #{show(key)}" }
      check(sibling.nil? || sibling.obj == before) { "adding to one copy changed another" }
    end

    def after_frozen_write(inst)
      inst.keys.values.first(5).each { |k| check(inst.obj.include?(k)) { "frozen filter lost #{show(k)}" } }
    end

    def op_bits
      inst = pick(@insts)
      log :bits, @insts.index(inst)
      bits = inst.obj.bits
      check(bits.size == inst.obj.m) { "bits.size #{bits.size} != m #{inst.obj.m}" }
      check(bits.total_set <= [inst.adds * inst.obj.k, inst.obj.m].min) { "more bits set than k per add" }
      check(inst.exact.nil? || bits.to_s == inst.exact) { "bits #{bits} != model #{inst.exact}" }
      copy = bits.dup
      pos = rng.rand(inst.obj.m)
      before = inst.obj.dup
      copy[pos] = 1 - copy[pos]
      check(inst.obj == before) { "writing to a dup of #bits changed the filter" }
    end

    def full_check(inst)
      check_kept(inst)
      check(inst.exact.nil? || inst.obj.bits.to_s == inst.exact) { "bits differ from the exact model" }
    end
  end
end
