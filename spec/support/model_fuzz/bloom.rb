# frozen_string_literal: true

# BloomFuzz: BloomFilter against the keys added.
module ModelFuzz
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
end
