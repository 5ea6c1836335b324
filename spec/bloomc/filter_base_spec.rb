# frozen_string_literal: true

require "spec_helper"

# Bloomc::Filter's own add, add?, include?, count and delete go through a
# kind's descriptor; each kind replaces them with direct calls of its core
# (BLOOMC_HOT_METHODS, BLOOMC_HOT_COUNT, BLOOMC_HOT_DELETE). Both must give the same answers and leave the same
# cells, so that a kind without hot methods of its own would work as well.
RSpec.describe Bloomc::Filter do
  keys = Array.new(2000) { |i| "key#{i}" } + [7, :sym]
  probes = keys + Array.new(4000) { |i| "absent#{i}" }
  filter_method = ->(name) { described_class.instance_method(name) }

  it "makes no objects of its own" do
    expect { described_class.new }.to raise_error(TypeError)
    expect { described_class.allocate }.to raise_error(TypeError)
  end

  Kinds::LIST.reject(&:built_once?).each do |kind|
    describe kind.name do
      def build(kind) = Kinds.sized(kind.name, 3000, 0.01, **(kind.klass == Bloomc::StableBloomFilter ? { random_seed: 5 } : {}))

      it "adds through the descriptor as its own add does: the same answers and cells" do
        own = build(kind)
        shared = build(kind)
        own_answers = keys.map { |key| own.add?(key).equal?(own) }
        shared_answers = keys.map { |key| filter_method.(:add?).bind_call(shared, key).equal?(shared) }
        expect(shared_answers).to eq(own_answers)
        keys.first(100).each do |key|
          own.add(key)
          expect(filter_method.(:add).bind_call(shared, key)).to equal(shared)
        end
        expect(shared).to eq(own) # the same fields and cells (a dump also says when it was made)
      end

      it "looks up through the descriptor as its own include? does, frozen or not" do
        filter = build(kind)
        filter.add_all(keys)
        expect(probes.map { |key| filter_method.(:include?).bind_call(filter, key) }).to eq(probes.map { |key| filter.include?(key) })
        frozen = filter.dup.freeze
        expect(probes.map { |key| filter_method.(:[]).bind_call(frozen, key) }).to eq(probes.map { |key| frozen[key] })
        expect { filter_method.(:add).bind_call(frozen, "x") }.to raise_error(FrozenError)
      end

      if kind.klass.method_defined?(:count)
        it "counts and deletes through the descriptor as its own count and delete do" do
          own = build(kind)
          shared = build(kind)
          [own, shared].each { |f| (keys + keys.first(300)).each { |key| f.add(key) } }
          expect(probes.map { |key| filter_method.(:count).bind_call(shared, key) }).to eq(probes.map { |key| own.count(key) })
          next unless own.respond_to?(:delete) && (!own.respond_to?(:algorithm) || own.algorithm == :rm)

          deleted = keys.first(500).map { |key| [filter_method.(:delete).bind_call(shared, key), own.delete(key)] }
          expect(deleted.map(&:first)).to eq(deleted.map(&:last))
          expect(shared).to eq(own)
          expect { filter_method.(:delete).bind_call(shared.freeze, "x") }.to raise_error(FrozenError)
        end
      end
    end
  end

  it "refuses an add to a filter built once, naming its class" do
    fuse = Bloomc::BinaryFuseFilter.build(keys)
    expect { filter_method.(:add).bind_call(fuse, "x") }.to raise_error(Bloomc::UnsupportedError, /BinaryFuseFilter/)
    expect(probes.map { |key| filter_method.(:include?).bind_call(fuse, key) }).to eq(probes.map { |key| fuse.include?(key) })
  end
end
