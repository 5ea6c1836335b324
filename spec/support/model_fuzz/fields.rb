# frozen_string_literal: true

module ModelFuzz
  # BitField and BitBucketField against an Array of their values.
  class FieldFuzz < Fuzzer
    include Copies

    Inst = Struct.new(:obj, :model)

    steps op_write: 35, op_read: 25, op_whole: 7, op_bad_position: 8, op_bad_value: 5, op_dup: 5, op_freeze: 3,
          op_frozen_write: 4, op_compare: 4, op_check: 4
    # What the two fields take and refuse: the writes (inc and dec twice as
    # often), the reads, the calls that take a value and the value they
    # write when the position is what is wrong, the values out of range, and
    # what a value of another type raises.
    KINDS = {
      bits: { writes: %i[[]= set unset], reads: %i[[] get include? zero?], valued: %i[[]=], harmless: 1,
              out_of_range: ->(_max) { [2, -1, 2**64, *(NON_INTEGERS - [true])] }, wrong_type: [ArgumentError, TypeError] },
      buckets: { writes: %i[[]= set inc dec inc dec], reads: %i[[] get zero?], valued: %i[[]= set], harmless: 0,
                 out_of_range: ->(max) { [max + 1, -1, 2**64, -(2**64), 2**32, *NON_INTEGERS] }, wrong_type: [TypeError] }
    }.freeze
    BITS = { true => 1, false => 0 }.freeze # what a BitField stores for true and false

    def initialize(name, seed, buckets:, ops: OPS)
      super(name, seed, ops)
      @buckets = buckets
      @kind = KINDS.fetch(buckets ? :buckets : :bits)
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

    # A call at pos, with the harmless value where it takes one.
    def call_args(via, pos) = @kind[:valued].include?(via) ? [pos, @kind[:harmless]] : [pos]

    def same_contents?(copy, inst) = copy.to_a == inst.model && copy.size == size

    def op_write
      inst = pick(writable)
      via = pick(@kind[:writes])
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
          m[pos] = BITS.fetch(v, v)
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
      via = pick(@kind[:reads])
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
      via = pick(@kind[:reads] + @kind[:writes].uniq)
      args = call_args(via, pos)
      log via, @insts.index(inst), *args
      reason = pos.is_a?(Integer) ? IndexError : TypeError
      write = @kind[:writes].include?(via)
      allowed = write && inst.obj.frozen? ? [FrozenError, reason] : [reason]
      before = inst.obj.dup
      expect_raise(allowed, "#{via}(#{args.map { |a| show(a) }.join(', ')})") { inst.obj.public_send(via, *args) }
      check(inst.obj == before && inst.obj.to_a == inst.model) { "a refused #{via} changed the field" }
    end

    def op_bad_value
      inst = pick(@insts)
      pos = rng.rand(size)
      v = pick(@kind[:out_of_range].call(@max))
      valued = @kind[:valued]
      via = valued.size == 1 ? valued.first : pick(valued) # no draw where there is no choice
      log via, @insts.index(inst), pos, v
      # README: ArgumentError for out-of-range bucket values, TypeError for
      # non-Integers; the BitField call-seq: ArgumentError for any other value.
      allowed = v.is_a?(Integer) ? [ArgumentError] : @kind[:wrong_type]
      allowed += [FrozenError] if inst.obj.frozen?
      before = inst.obj.dup
      expect_raise(allowed, "#{via}(#{pos}, #{show(v)})") { inst.obj.public_send(via, pos, v) }
      check(inst.obj == before && inst.obj.to_a == inst.model) { "a refused #{via}(#{pos}, #{show(v)}) changed the field" }
    end

    def op_frozen_write
      inst = pick(frozen_insts) or return
      pos = rng.rand(size)
      via = pick(@kind[:writes])
      args = call_args(via, pos)
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
  end
end
