# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::BitBucketField do
  # Widths whose buckets cross byte (and, over a 64-bit load, word) boundaries.
  def self.straddling_widths
    [3, 5, 7, 9, 13, 17, 31]
  end

  def max_for(bits)
    2**bits - 1
  end

  def bad_positions(size)
    {
      -1 => IndexError,
      -(2**70) => IndexError,
      size => IndexError,
      size + 1 => IndexError,
      2**62 => IndexError,
      2**64 => IndexError,
      nil => TypeError,
      1.0 => TypeError,
      "1" => TypeError,
      :a => TypeError
    }
  end

  # Every method taking a position, as a lambda (field, position).
  def position_methods
    {
      "[]" => ->(f, i) { f[i] },
      "get" => ->(f, i) { f.get(i) },
      "[]=" => ->(f, i) { f[i] = 1 },
      "set" => ->(f, i) { f.set(i, 1) },
      "zero?" => ->(f, i) { f.zero?(i) },
      "inc" => ->(f, i) { f.inc(i) },
      "dec" => ->(f, i) { f.dec(i) }
    }
  end

  # A field holding `values`, filled through []=.
  def field_with(bits, values)
    field = described_class.new(bits, values.size)
    values.each_with_index { |v, i| field[i] = v }
    field
  end

  describe ".new" do
    it "makes a field of `size` zero buckets of `bits` bits for every width 1..32" do
      (1..32).each do |bits|
        field = described_class.new(bits, 5)
        expect(field.bits).to eq(bits)
        expect(field.size).to eq(5)
        expect(field.total_set).to eq(0)
        expect(field.to_a).to eq([0] * 5)
        expect(field.to_s).to eq((["0" * bits] * 5).join(" "))
      end
    end

    it "rejects a width outside 1..32 with ArgumentError" do
      [0, 33, -1, 64, 2**70, -(2**70)].each do |bits|
        expect { described_class.new(bits, 10) }.to raise_error(ArgumentError), "bits #{bits}"
      end
    end

    it "rejects a width that is not an Integer with TypeError" do
      [nil, 4.0, "4", :four, Rational(4, 1)].each do |bits|
        expect { described_class.new(bits, 10) }.to raise_error(TypeError), "bits #{bits.inspect}"
      end
    end

    it "rejects a non-positive or too large size with ArgumentError, a non-Integer with TypeError" do
      [0, -1, 2**57, 2**70].each do |size|
        expect { described_class.new(4, size) }.to raise_error(ArgumentError), "size #{size}"
      end
      [nil, "10", 1.5].each do |size|
        expect { described_class.new(4, size) }.to raise_error(TypeError), "size #{size.inspect}"
      end
    end

    it "requires both arguments" do
      expect { described_class.new }.to raise_error(ArgumentError)
      expect { described_class.new(4) }.to raise_error(ArgumentError)
    end
  end

  describe "every width 1..32" do
    (1..32).each do |bits|
      context "with #{bits}-bit buckets" do
        let(:max) { max_for(bits) }

        it "stores random values in every bucket like a Ruby Array" do
          rng = Random.new(1000 + bits)
          [1, 3, 67, 200].each do |size|
            field = described_class.new(bits, size)
            ref = Array.new(size, 0)
            (size * 4).times do
              i = rng.rand(size)
              v = rng.rand(4).zero? ? [0, max].sample(random: rng) : rng.rand(max + 1)
              if rng.rand(2).zero?
                expect(field[i] = v).to eq(v)
              else
                expect(field.set(i, v)).to eq(v)
              end
              ref[i] = v
            end
            expect(field.to_a).to eq(ref), "size #{size}"
            size.times { |i| expect(field.get(i)).to eq(ref[i]) }
            size.times { |i| expect(field.zero?(i)).to eq(ref[i].zero?) }
            expect(field.total_set).to eq(ref.count(&:positive?)), "size #{size}"
          end
        end

        it "never touches the neighbours of a bucket set to its maximum" do
          size = 67
          field = described_class.new(bits, size)
          size.times do |i|
            field[i] = max
            expect(field[i - 1]).to eq(0) if i.positive?
            expect(field[i + 1]).to eq(0) if i < size - 1
            expect(field.total_set).to eq(1)
            field[i] = 0
            expect(field.total_set).to eq(0)
          end
          expect(field.to_a).to eq([0] * size)
        end

        it "never touches maximal neighbours of a bucket set to 0" do
          size = 67
          field = field_with(bits, [max] * size)
          expect(field.total_set).to eq(size)
          size.times do |i|
            field[i] = 0
            expect(field[i - 1]).to eq(max) if i.positive?
            expect(field[i + 1]).to eq(max) if i < size - 1
            expect(field.total_set).to eq(size - 1)
            field[i] = max
          end
          expect(field.to_a).to eq([max] * size)
        end

        it "saturates inc at the maximum and dec at 0, returning the new value" do
          field = described_class.new(bits, 3)
          field[0] = max
          field[2] = max
          expect(field.dec(1)).to eq(0)
          expect(field.to_a).to eq([max, 0, max])
          expect(field.inc(1)).to eq(1)
          expect(field[1]).to eq(1)
          expect(field.to_a).to eq([max, 1, max])

          field[1] = max - 1
          expect(field.inc(1)).to eq(max)
          expect(field.inc(1)).to eq(max)
          expect(field.to_a).to eq([max, max, max])

          field[0] = 0
          field[2] = 0
          field[1] = 1
          expect(field.dec(1)).to eq(0)
          expect(field.dec(1)).to eq(0)
          expect(field.inc(1)).to eq(1)
          expect(field.to_a).to eq([0, 1, 0])
          field[1] = max
          expect(field.inc(1)).to eq(max)
          expect(field.dec(1)).to eq(max - 1)
          expect(field.to_a).to eq([0, max - 1, 0])
        end

        it "formats to_s in base 2 padded to #{bits} digits and in base 10 plain" do
          rng = Random.new(bits)
          values = Array.new(9) { rng.rand(max + 1) }
          values[0] = 0
          values[1] = max
          field = field_with(bits, values)
          expect(field.to_s).to eq(values.map { |v| v.to_s(2).rjust(bits, "0") }.join(" "))
          expect(field.to_s(2)).to eq(field.to_s)
          expect(field.to_s(10)).to eq(values.join(" "))
        end

        it "rejects values outside 0..#{2**bits - 1} with ArgumentError, leaving the field unchanged" do
          field = field_with(bits, [1, max, 0])
          [-1, max + 1, 2**32, 2**64, 2**70, -(2**70)].each do |value|
            [0, 1, 2].each do |pos|
              expect { field[pos] = value }.to raise_error(ArgumentError), "#{value} at #{pos}"
              expect { field.set(pos, value) }.to raise_error(ArgumentError), "#{value} at #{pos}"
            end
          end
          expect(field.to_a).to eq([1, max, 0])
        end
      end
    end
  end

  describe "#total_set for widths that straddle byte and word boundaries" do
    straddling_widths.each do |bits|
      it "counts the non-zero buckets of #{bits}-bit buckets" do
        rng = Random.new(bits * 31)
        max = max_for(bits)
        [1, 2, 7, 8, 9, 57, 58, 63, 64, 65, 200, 1000].each do |size|
          # Sparse, dense, and single-bit values (low bit and top bit of a bucket).
          [0.1, 0.5, 0.9].each do |density|
            values = Array.new(size) do
              next 0 unless rng.rand < density

              case rng.rand(3)
              when 0 then 1
              when 1 then 1 << (bits - 1)
              else rng.rand(1..max)
              end
            end
            field = field_with(bits, values)
            expect(field.total_set).to eq(values.count(&:positive?)), "size #{size}, density #{density}"
          end
        end
      end
    end

    it "counts a field where every bucket is non-zero, and one where only the last is" do
      self.class.straddling_widths.each do |bits|
        [1, 57, 64, 65, 1001].each do |size|
          field = field_with(bits, [1] * size)
          expect(field.total_set).to eq(size)
          last = described_class.new(bits, size)
          last[size - 1] = 1 << (bits - 1)
          expect(last.total_set).to eq(1)
        end
      end
    end
  end

  describe "#to_s" do
    it "pads each 4-bit bucket to 4 binary digits separated by single spaces" do
      field = field_with(4, [3, 8])
      expect(field.to_s).to eq("0011 1000")
      expect(field.to_s(2)).to eq("0011 1000")
      expect(field.to_s(10)).to eq("3 8")
    end

    it "has no separator for a single bucket" do
      expect(field_with(32, [2**32 - 1]).to_s(10)).to eq("4294967295")
      expect(field_with(1, [1]).to_s).to eq("1")
    end

    it "rejects any base other than 2 and 10 with ArgumentError" do
      field = field_with(4, [3, 8])
      [8, 16, 36, 0, -2, nil, "2", "10", 2.0, 10.0, :"2", 2**64].each do |base|
        expect { field.to_s(base) }.to raise_error(ArgumentError), "base #{base.inspect}"
      end
      expect { field.to_s(2, 10) }.to raise_error(ArgumentError)
    end
  end

  describe "#each and Enumerable" do
    subject(:field) { field_with(5, [0, 31, 7, 0, 16]) }

    it "yields each bucket's value from position 0 up and returns self" do
      yielded = []
      expect(field.each { |v| yielded << v }).to equal(field)
      expect(yielded).to eq([0, 31, 7, 0, 16])
    end

    it "returns a sized Enumerator without a block" do
      enum = field.each
      expect(enum).to be_a(Enumerator)
      expect(enum.size).to eq(5)
      expect(enum.to_a).to eq([0, 31, 7, 0, 16])
    end

    it "supports Enumerable methods" do
      expect(field).to be_a(Enumerable)
      expect(field.to_a).to eq([0, 31, 7, 0, 16])
      expect(field.count).to eq(5)
      expect(field.count(&:positive?)).to eq(3)
      expect(field.max).to eq(31)
      expect(field.sum).to eq(54)
      expect(field.each_with_index.to_a.last).to eq([16, 4])
    end
  end

  describe "#==" do
    it "is true for fields of the same width and size holding the same values" do
      expect(field_with(7, [1, 127, 0, 5]) == field_with(7, [1, 127, 0, 5])).to be(true)
    end

    it "is false when values, widths or sizes differ, or for other objects" do
      a = field_with(7, [1, 127, 0, 5])
      expect(a == field_with(7, [1, 127, 0, 6])).to be(false)
      expect(a == field_with(8, [1, 127, 0, 5])).to be(false)
      expect(a == field_with(7, [1, 127, 0, 5, 0])).to be(false)
      # The same bytes, read as different widths.
      expect(described_class.new(4, 2) == described_class.new(8, 1)).to be(false)
      expect(a == a.to_a).to be(false)
      expect(a == nil).to be(false)
      expect(described_class.new(1, 8) == Bloomc::BitField.new(8)).to be(false)
    end
  end

  describe "#dup and #clone" do
    it "make deep copies" do
      %i[dup clone].each do |copy_method|
        original = field_with(13, [1, 8191, 0, 42])
        copy = original.public_send(copy_method)
        expect(copy).to eq(original)
        expect(copy).not_to equal(original)
        expect(copy.bits).to eq(13)
        copy[0] = 0
        copy.inc(2)
        expect(original.to_a).to eq([1, 8191, 0, 42])
        original.dec(3)
        expect(copy.to_a).to eq([0, 8191, 1, 42])
      end
    end

    it "copies a frozen field: clone stays frozen, dup is writable" do
      original = field_with(4, [1, 2]).freeze
      expect { original.clone.inc(0) }.to raise_error(FrozenError)
      copy = original.dup
      copy.inc(0)
      expect(copy.to_a).to eq([2, 2])
      expect(original.to_a).to eq([1, 2])
    end
  end

  describe "#inspect" do
    it "is a short summary, not the buckets" do
      text = described_class.new(4, 10_000).inspect
      expect(text).to include("Bloomc::BitBucketField")
      expect(text).to include("10000")
      expect(text.length).to be < 100
    end
  end

  describe "bad values" do
    it "reject non-Integers with TypeError and leave the field unchanged" do
      field = field_with(4, [3, 8, 0])
      [nil, 1.5, 1.0, "1", :a, [1], true].each do |value|
        [0, 2].each do |pos|
          expect { field[pos] = value }.to raise_error(TypeError), value.inspect
          expect { field.set(pos, value) }.to raise_error(TypeError), value.inspect
        end
      end
      expect(field.to_s).to eq("0011 1000 0000")
    end
  end

  describe "bad positions" do
    [1, 10, 67].each do |size|
      it "raise IndexError or TypeError from every method and leave a #{size}-bucket field unchanged" do
        field = described_class.new(3, size)
        field[0] = 5
        field[size - 1] = 7
        before = field.to_s
        position_methods.each do |name, call|
          bad_positions(size).each do |pos, error|
            expect { call.call(field, pos) }.to raise_error(error), "#{name}(#{pos.inspect})"
            expect(field.to_s).to eq(before)
          end
        end
      end
    end
  end

  describe "a frozen field" do
    subject(:field) { field_with(4, [3, 8, 15]).freeze }

    it "raises FrozenError from []=, set, inc and dec and stays unchanged" do
      writers = {
        "[]=" => -> { field[1] = 1 },
        "set" => -> { field.set(1, 1) },
        "inc" => -> { field.inc(0) },
        "inc at max" => -> { field.inc(2) },
        "dec" => -> { field.dec(0) },
        "initialize" => -> { field.send(:initialize, 4, 3) },
        "initialize_copy" => -> { field.send(:initialize_copy, described_class.new(4, 3)) }
      }
      writers.each do |name, call|
        expect { call.call }.to raise_error(FrozenError), name
        expect(field.to_a).to eq([3, 8, 15])
      end
    end

    it "can still be read" do
      expect(field[1]).to eq(8)
      expect(field.total_set).to eq(3)
      expect(field.to_s(10)).to eq("3 8 15")
    end
  end

  describe "an uninitialized object" do
    subject(:field) { described_class.allocate }

    it "raises TypeError from every method instead of crashing" do
      calls = {
        "size" => -> { field.size },
        "bits" => -> { field.bits },
        "[]" => -> { field[0] },
        "get" => -> { field.get(0) },
        "[]=" => -> { field[0] = 1 },
        "set" => -> { field.set(0, 1) },
        "zero?" => -> { field.zero?(0) },
        "inc" => -> { field.inc(0) },
        "dec" => -> { field.dec(0) },
        "total_set" => -> { field.total_set },
        "each" => -> { field.each { nil } },
        "to_a" => -> { field.to_a },
        "to_s" => -> { field.to_s },
        "to_s(10)" => -> { field.to_s(10) },
        "==" => -> { field == described_class.new(1, 1) },
        "== (as other)" => -> { described_class.new(1, 1) == field },
        "dup" => -> { field.dup }
      }
      calls.each do |name, call|
        expect { call.call }.to raise_error(TypeError), name
      end
    end
  end

  describe "GC compaction" do
    it "keeps values across a compacting GC" do
      field = field_with(9, [511, 0, 256])
      compact_gc
      expect(field.to_a).to eq([511, 0, 256])
    end
  end
end
