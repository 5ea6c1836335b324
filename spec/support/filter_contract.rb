# frozen_string_literal: true

# One contract for every backend of a Bloom filter: the same examples run
# against Bloomc::BloomFilter, a mapped one (BloomFilter.open), and
# Bloomc::Redis::BloomFilter on a standalone server and on a Redis Cluster
# (spec/bloomc/filter_contract_spec.rb). Each answer is compared with a
# local filter of the same shape, whose answers (false positives included)
# every backend gives.
#
# The including group defines, with let or def:
# - build: a new, empty filter of m: 20_000, k: 5, seed: 7 (every call a
#   filter of its own);
# - union(a, b) and intersection(a, b): the combined filter, a | b and a & b
#   locally; in Redis a.union(b, into: NAME), a filter needing a name;
# - m_of(filter): its m (a local filter sized by m: has exactly m cells).
RSpec.shared_examples "a Bloom filter's contract" do
  keys = Array.new(1500) { |i| "contract-#{i}" }.freeze
  others = Array.new(1500) { |i| "other-#{i}" }.freeze
  probes = Array.new(3000) { |i| "probe-#{i}" }.freeze

  let(:reference) { Bloomc::BloomFilter.new(20_000, 5, seed: 7) }

  it "has the shape it was built with, and starts empty" do
    filter = build
    expect([filter.m, filter.k, filter.seed, filter.size]).to eq([20_000, 5, 7, 0])
    expect(filter.empty?).to be(true)
    expect([filter.fill_ratio, filter.estimated_count, filter.false_positive_rate]).to eq([0.0, 0.0, 0.0])
    expect(filter.include?("contract-0")).to be(false)
  end

  it "adds and finds keys one at a time, add? saying which were new, as the local filter answers" do
    filter = build
    expect(filter << "contract-0" << :sym << 42).to equal(filter)
    expect(filter.add("contract-1")).to equal(filter)
    expect([filter.empty?, filter.include?("contract-0"), filter[:sym], filter.include?(42)]).to eq([false, true, true, true])
    reference.add_all(["contract-0", :sym, 42, "contract-1"])
    fresh = keys.drop(2).first(300).map do |key|
      was = reference.include?(key)
      reference << key
      [filter.add?(key).equal?(filter), !was]
    end
    expect(fresh.map(&:first)).to eq(fresh.map(&:last))
    expect(filter.add?("contract-0")).to be_nil
    expect(filter.size).to eq(305)
    expect(probes.first(200).map { |key| filter.include?(key) }).to eq(reference.include_all(probes.first(200)))
  end

  it "answers the batch forms as the local filter does" do
    filter = build
    expect(filter.add_all(keys.first(700).each)).to equal(filter) # any Enumerable
    reference.add_all(keys.first(700))
    expected_new = keys[600, 400].reject { |key| reference.include?(key).tap { reference << key } }
    expect(filter.add_new(keys[600, 400])).to eq(expected_new)
    expect(filter.include_all(probes)).to eq(reference.include_all(probes))
    expect(filter.count_included(probes)).to eq(reference.count_included(probes))
    expect([filter.all_include?(keys.first(1000)), filter.any_include?(%w[never-a never-b])]).to eq([true, false])
    expect(filter.size).to eq(1100)
  end

  it "reports fill, estimated count and false-positive rate as the local filter's cells give them" do
    filter = build
    filter.add_all(keys)
    reference.add_all(keys)
    expect(filter.fill_ratio).to be_within(1e-12).of(reference.fill_ratio)
    expect(filter.estimated_count).to be_within(1e-6).of(reference.estimated_count)
    expect(filter.estimated_count).to be_within(0.05 * 1500).of(1500)
    expect(filter.false_positive_rate).to be_within(1e-12).of(reference.false_positive_rate)
    measured = filter.count_included(probes).fdiv(probes.size)
    expect(measured).to be_within(0.01).of(filter.false_positive_rate)
  end

  it "merges another filter of its shape in place (merge!), and builds unions and intersections" do
    a = build.add_all(keys)
    b = build.add_all(others)
    local_a = Bloomc::BloomFilter.new(20_000, 5, seed: 7).add_all(keys)
    local_b = Bloomc::BloomFilter.new(20_000, 5, seed: 7).add_all(others)

    both = union(a, b)
    expect(both.all_include?(keys + others)).to be(true)
    expect(both.include_all(probes)).to eq((local_a | local_b).include_all(probes))
    expect(both.size).to eq(3000)
    common = intersection(a, b)
    expect(common.include_all(keys + others + probes)).to eq((local_a & local_b).include_all(keys + others + probes))
    expect(common.size).to eq(1500)
    expect(common.fill_ratio).to be_within(1e-12).of((local_a & local_b).fill_ratio)
    expect([a.size, b.size]).to eq([1500, 1500]) # the operands stay as they were

    expect(a.merge!(b)).to equal(a)
    expect(a.all_include?(others)).to be(true)
    expect(a.include_all(probes)).to eq(both.include_all(probes))
    expect([a.size, a.fill_ratio]).to eq([3000, both.fill_ratio])
  end

  it "refuses to combine filters of another shape, naming the difference" do
    expect { build.merge!(other_shape) }.to raise_error(ArgumentError, /different m/)
  end
end
