# frozen_string_literal: true

module ModelFuzz
  # ContinuousBloomFilter with ttl 0, ticked by inc_time_slot, against a Hash
  # of key => tick of its last add; for seed 0 also against its exact buckets
  # (a Hash position => slot of the non-empty ones).
  class ContinuousFuzz < Fuzzer
    include Copies
    include FilterOps

    Inst = Struct.new(:obj, :last_add, :ticks, :quiet_since, :exact)

    steps op_add: 30, op_include_live: 22, op_include_any: 8, op_tick: 16, op_quiet: 3, op_dup: 5, op_freeze: 2,
          op_frozen_write: 4, op_bad_key: 5, op_check: 5
    BAD_KEY_CALLS = %i[add << include? []].freeze
    FROZEN_WRITES = {
      "add" => ->(f, _, key, _) { f.add(key) },
      "<<" => ->(f, _, key, _) { f << key },
      "inc_time_slot" => ->(f, _, _, _) { f.inc_time_slot },
      "buckets[]=" => ->(f, _, _, pos) { f.buckets[pos] = 0 },
      "buckets.inc" => ->(f, _, _, pos) { f.buckets.inc(pos) }
    }.freeze

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

    def unchanged?(inst) = inst.obj.ticks == inst.ticks

    def same_contents?(copy, inst)
      original = inst.obj
      %i[m k ttl seed hash_function ticks].all? { |a| copy.public_send(a) == original.public_send(a) } &&
        copy.buckets == original.buckets && !copy.timer_running?
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
end
