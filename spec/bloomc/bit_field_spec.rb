# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::BitField do
  # Bad positions for a field of `size` bits: out-of-range Integers (Fixnum
  # and Bignum) raise IndexError, anything that is not an Integer TypeError.
  def bad_positions(size)
    {
      -1 => IndexError,
      -(2**70) => IndexError,
      size => IndexError,
      size + 1 => IndexError,
      2**62 => IndexError,
      2**64 => IndexError,
      2**64 + 3 => IndexError,
      nil => TypeError,
      1.0 => TypeError,
      "1" => TypeError,
      :a => TypeError,
      Rational(1, 1) => TypeError
    }
  end

  # Every method taking a position, as a lambda (field, position).
  def position_methods
    {
      "[]" => ->(f, i) { f[i] },
      "get" => ->(f, i) { f.get(i) },
      "[]= 1" => ->(f, i) { f[i] = 1 },
      "[]= 0" => ->(f, i) { f[i] = 0 },
      "set" => ->(f, i) { f.set(i) },
      "unset" => ->(f, i) { f.unset(i) },
      "include?" => ->(f, i) { f.include?(i) },
      "zero?" => ->(f, i) { f.zero?(i) }
    }
  end

  # Every writer, as a lambda (field).
  def writers
    {
      "[]= 1" => ->(f) { f[3] = 1 },
      "[]= 0" => ->(f) { f[1] = 0 },
      "[]= true" => ->(f) { f[3] = true },
      "[]= false" => ->(f) { f[1] = false },
      "set" => ->(f) { f.set(3) },
      "unset" => ->(f) { f.unset(1) },
      "set on a set bit" => ->(f) { f.set(1) },
      "initialize" => ->(f) { f.send(:initialize, 20) },
      "initialize_copy" => ->(f) { f.send(:initialize_copy, described_class.new(20)) }
    }
  end

  def ruby_to_s(bits)
    bits.map { |b| b ? "1" : "0" }.join
  end

  describe ".new" do
    it "makes a field of the given size with every bit zero" do
      [1, 7, 8, 9, 63, 64, 65, 1000].each do |size|
        field = described_class.new(size)
        expect(field.size).to eq(size)
        expect(field.total_set).to eq(0)
        expect(field.to_s).to eq("0" * size)
        expect(field.to_a).to eq([0] * size)
      end
    end

    it "rejects a non-positive or too large size with ArgumentError" do
      [0, -1, -64, -(2**70), 2**61, 2**64, 2**70].each do |size|
        expect { described_class.new(size) }.to raise_error(ArgumentError), "size #{size}"
      end
    end

    it "rejects a size that is not an Integer with TypeError" do
      [nil, "10", 1.5, 10.0, :ten, Rational(10, 1), [10]].each do |size|
        expect { described_class.new(size) }.to raise_error(TypeError), "size #{size.inspect}"
      end
    end

    it "requires exactly one argument" do
      expect { described_class.new }.to raise_error(ArgumentError)
      expect { described_class.new(8, 8) }.to raise_error(ArgumentError)
    end
  end

  describe "reading and writing bits" do
    subject(:field) { described_class.new(10) }

    it "reads every bit as 0 in a new field through [], get, include? and zero?" do
      10.times do |i|
        expect(field[i]).to eq(0)
        expect(field.get(i)).to eq(0)
        expect(field.include?(i)).to be(false)
        expect(field.zero?(i)).to be(true)
      end
    end

    it "sets and clears single bits with []= 1, 0, true and false" do
      field[1] = 1
      field[5] = true
      expect(field.to_s).to eq("0100010000")
      expect(field[1]).to eq(1)
      expect(field.get(5)).to eq(1)
      expect(field.include?(5)).to be(true)
      expect(field.zero?(5)).to be(false)
      expect(field[4]).to eq(0)
      expect(field[6]).to eq(0)

      field[1] = 0
      expect(field.to_s).to eq("0000010000")
      field[5] = false
      expect(field.to_s).to eq("0000000000")
    end

    it "returns the assigned value from []=" do
      expect(field.send(:[]=, 2, 1)).to eq(1)
      expect(field.send(:[]=, 2, true)).to be(true)
      expect(field.send(:[]=, 2, false)).to be(false)
      expect(field.send(:[]=, 2, 0)).to eq(0)
    end

    it "is idempotent: setting a set bit or clearing a clear bit changes nothing" do
      field[3] = 1
      field[3] = 1
      field[4] = 0
      expect(field.to_s).to eq("0001000000")
      expect(field.total_set).to eq(1)
    end

    it "rejects any other bit value with ArgumentError and leaves the field unchanged" do
      field[2] = 1
      field[7] = 1
      [2, -1, 1.0, 0.0, nil, "1", :one, 2**64, [1]].each do |value|
        [2, 3].each do |pos|
          before = field.to_s
          expect { field[pos] = value }.to raise_error(ArgumentError), "value #{value.inspect}"
          expect(field.to_s).to eq(before)
        end
      end
      expect(field.to_s).to eq("0010000100")
    end

    it "set and unset return self and change only their bit" do
      expect(field.set(0)).to equal(field)
      expect(field.set(9)).to equal(field)
      expect(field.to_s).to eq("1000000001")
      expect(field.unset(0)).to equal(field)
      expect(field.unset(8)).to equal(field)
      expect(field.to_s).to eq("0000000001")
    end

    it "places position 0 first in to_s" do
      field.set(0)
      expect(field.to_s).to eq("1000000000")
      field.unset(0).set(9)
      expect(field.to_s).to eq("0000000001")
    end

    it "returns a US-ASCII String from to_s" do
      field.set(3)
      expect(field.to_s.encoding).to eq(Encoding::US_ASCII)
    end

    it "keeps bits in neighbouring bytes and words apart" do
      big = described_class.new(200)
      positions = [0, 7, 8, 15, 63, 64, 65, 127, 128, 199]
      positions.each { |i| big.set(i) }
      200.times { |i| expect(big[i]).to eq(positions.include?(i) ? 1 : 0), "bit #{i}" }
      big.unset(64)
      expect(big[63]).to eq(1)
      expect(big[65]).to eq(1)
      expect(big.total_set).to eq(positions.size - 1)
    end
  end

  describe "against a Ruby reference" do
    [1, 7, 8, 63, 64, 65, 127, 1000, 4097].each do |size|
      it "matches an Array of booleans for random writes on #{size} bits" do
        rng = Random.new(size * 7919)
        field = described_class.new(size)
        ref = Array.new(size, false)
        (size * 3).clamp(10, 6000).times do
          i = rng.rand(size)
          case rng.rand(4)
          when 0 then field.set(i); ref[i] = true
          when 1 then field.unset(i); ref[i] = false
          when 2 then field[i] = true; ref[i] = true
          else v = rng.rand(2); field[i] = v; ref[i] = (v == 1)
          end
        end
        expect(field.total_set).to eq(ref.count(true))
        expect(field.to_s).to eq(ruby_to_s(ref))
        expect(field.to_a).to eq(ref.map { |b| b ? 1 : 0 })
        expect(field.count(1)).to eq(ref.count(true))
      end
    end

    it "counts every bit when all are set, for sizes that are not multiples of 8 or 64" do
      [1, 7, 9, 63, 64, 65, 1000, 4097].each do |size|
        field = described_class.new(size)
        size.times { |i| field.set(i) }
        expect(field.total_set).to eq(size)
        expect(field.to_s).to eq("1" * size)
        field.unset(size - 1)
        expect(field.total_set).to eq(size - 1)
      end
    end
  end

  describe "#each and Enumerable" do
    subject(:field) { described_class.new(10).set(1).set(5).set(9) }

    it "yields each bit as 0 or 1 from position 0 up and returns self" do
      yielded = []
      expect(field.each { |b| yielded << b }).to equal(field)
      expect(yielded).to eq([0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    end

    it "returns a sized Enumerator without a block" do
      enum = field.each
      expect(enum).to be_a(Enumerator)
      expect(enum.size).to eq(10)
      expect(enum.next).to eq(0)
      expect(enum.next).to eq(1)
      expect(enum.to_a).to eq([0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
    end

    it "supports Enumerable methods" do
      expect(field).to be_a(Enumerable)
      expect(field.to_a).to eq([0, 1, 0, 0, 0, 1, 0, 0, 0, 1])
      expect(field.count).to eq(10)
      expect(field.count(1)).to eq(3)
      expect(field.count(&:zero?)).to eq(7)
      expect(field.each_with_index.select { |b, _| b == 1 }.map(&:last)).to eq([1, 5, 9])
      expect(field.sum).to eq(3)
    end

    it "sees changes made by the block to bits not yet visited" do
      seen = field.map.with_index do |b, i|
        field.set(i + 1) if i == 2
        b
      end
      expect(seen).to eq([0, 1, 0, 1, 0, 1, 0, 0, 0, 1])
    end
  end

  describe "#==" do
    it "is true for fields of the same size with the same bits" do
      a = described_class.new(70).set(3).set(69)
      b = described_class.new(70).set(69).set(3)
      expect(a == b).to be(true)
      expect(a == a).to be(true)
    end

    it "is false when bits or sizes differ, or for other objects" do
      a = described_class.new(70).set(3)
      expect(a == described_class.new(70).set(4)).to be(false)
      expect(a == described_class.new(71).set(3)).to be(false)
      expect(described_class.new(8) == described_class.new(16)).to be(false)
      expect(a == a.to_s).to be(false)
      expect(a == nil).to be(false)
      expect(a == Bloomc::BitBucketField.new(1, 70)).to be(false)
    end
  end

  describe "#dup and #clone" do
    it "make deep copies" do
      %i[dup clone].each do |copy_method|
        original = described_class.new(100).set(1).set(99)
        copy = original.public_send(copy_method)
        expect(copy).to eq(original)
        expect(copy).not_to equal(original)
        copy.set(50).unset(1)
        expect(original.to_s).to eq("01#{'0' * 97}1")
        expect(copy[50]).to eq(1)
        original.set(2)
        expect(copy[2]).to eq(0)
      end
    end

    it "copies a frozen field: clone stays frozen, dup is writable" do
      original = described_class.new(16).set(4).freeze
      expect(original.clone).to be_frozen
      expect { original.clone.set(5) }.to raise_error(FrozenError)
      copy = original.dup
      expect(copy).not_to be_frozen
      copy.set(5)
      expect(original[5]).to eq(0)
    end
  end

  describe "#inspect" do
    it "is a short summary, not the bits" do
      field = described_class.new(10_000).set(3).set(7)
      text = field.inspect
      expect(text).to include("Bloomc::BitField")
      expect(text).to include("10000")
      expect(text.length).to be < 100
    end
  end

  describe "bad positions" do
    [1, 10, 64, 65].each do |size|
      it "raise IndexError or TypeError from every method and leave a #{size}-bit field unchanged" do
        field = described_class.new(size)
        field.set(0)
        field.set(size - 1)
        before = field.to_s
        position_methods.each do |name, call|
          bad_positions(size).each do |pos, error|
            expect { call.call(field, pos) }.to raise_error(error), "#{name}(#{pos.inspect})"
            expect(field.to_s).to eq(before)
          end
        end
        expect(field.total_set).to eq(size == 1 ? 1 : 2)
      end
    end

    it "name the position in the IndexError message" do
      expect { described_class.new(10)[10] }.to raise_error(IndexError, /10/)
    end
  end

  describe "a frozen field" do
    subject(:field) { described_class.new(10).set(1).set(4).freeze }

    it "raises FrozenError from every writer and stays unchanged" do
      writers.each do |name, call|
        expect { call.call(field) }.to raise_error(FrozenError), name
        expect(field.to_s).to eq("0100100000")
        expect(field.size).to eq(10)
      end
    end

    it "can still be read" do
      expect(field[1]).to eq(1)
      expect(field.include?(4)).to be(true)
      expect(field.total_set).to eq(2)
      expect(field.to_a.sum).to eq(2)
    end
  end

  describe "an uninitialized object" do
    subject(:field) { described_class.allocate }

    it "raises TypeError from every method instead of crashing" do
      calls = {
        "size" => -> { field.size },
        "[]" => -> { field[0] },
        "get" => -> { field.get(0) },
        "[]=" => -> { field[0] = 1 },
        "set" => -> { field.set(0) },
        "unset" => -> { field.unset(0) },
        "include?" => -> { field.include?(0) },
        "zero?" => -> { field.zero?(0) },
        "total_set" => -> { field.total_set },
        "each" => -> { field.each { nil } },
        "to_a" => -> { field.to_a },
        "to_s" => -> { field.to_s },
        "==" => -> { field == described_class.new(1) },
        "== (as other)" => -> { described_class.new(1) == field },
        "dup" => -> { field.dup }
      }
      calls.each do |name, call|
        expect { call.call }.to raise_error(TypeError), name
      end
    end

    it "is equal to itself without touching its storage" do
      expect(field == field).to be(true)
    end
  end

  describe "GC compaction" do
    it "keeps bits across a compacting GC" do
      field = described_class.new(130).set(0).set(129)
      compact_gc
      expect(field.to_s).to eq("1#{'0' * 128}1")
    end
  end

  describe "a field of more than 2**32 bits" do
    it "addresses bits past 2**32 without wrapping around" do
      size = 2**32 + 64
      field = described_class.new(size)
      expect(field.size).to eq(size)
      field.set(2**32 + 5)
      expect(field[2**32 + 5]).to eq(1)
      expect(field[5]).to eq(0)
      expect(field[2**32 + 4]).to eq(0)
      expect(field.include?(2**32 + 5)).to be(true)
      expect(field.total_set).to eq(1)
      expect(field[size - 1]).to eq(0)
      expect { field[size] }.to raise_error(IndexError)
    end
  end
end
