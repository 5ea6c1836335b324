# frozen_string_literal: true

require "spec_helper"
require "json"

# What a Ruby developer expects of a collection-like object beside Set:
# member?, === for case/when, to_h and to_json, on every kind; and a
# namespace that shows only the API (Bloomc.constants).
RSpec.describe "Ruby idioms" do
  Kinds::LIST.each do |kind|
    context kind.name do
      let(:filter) do
        keys = %w[apple banana]
        kind.built_once? ? kind.klass.build(keys) : Kinds.sized(kind.name, 100, 0.01).tap { |f| f.add_all(keys) }
      end

      it "answers member? and === as include?, === false for what cannot be a key" do
        expect([filter.member?("apple"), filter.member?("cherry")]).to eq([true, false])
        expect(%w[apple cherry].map { |key| filter === key }).to eq([true, false]) # rubocop:disable Style/CaseEquality
        picked = %w[cherry banana].map do |key|
          case key
          when filter then :held
          else :absent
          end
        end
        expect(picked).to eq(%i[absent held])
        expect([nil, 1.5, Object.new].map { |key| filter === key }).to eq([false, false, false]) # rubocop:disable Style/CaseEquality
        expect { filter.member?(nil) }.to raise_error(TypeError) # include?'s own refusal
      end

      it "describes itself as a Hash: kind, named parameters, sizing, statistics, metadata" do
        filter.metadata = { "source" => "spec" }
        described = filter.to_h
        expect(described.keys).to eq(%i[kind parameters sizing stats metadata])
        expect(described[:kind]).to eq(kind.klass.name.delete_prefix("Bloomc::"))
        expect(described[:parameters]).to be_a(Hash).and(satisfy { |h| h.keys.all?(Symbol) && h.size >= 4 })
        expect(described[:metadata]).to eq({ "source" => "spec" })
        expect(described[:stats][:false_positive_rate]).to eq(filter.false_positive_rate)
        # the parameters are the JSON form's, by the same names
        json = JSON.parse(filter.to_json)
        expect(json["parameters"].keys.map(&:to_sym)).to eq(described[:parameters].keys)
        expect(json["kind"]).to eq(described[:kind])
        expect(JSON.parse(JSON.generate({ "f" => filter }))["f"].values_at("kind", "cells")).to eq(json.values_at("kind", "cells"))
        expect(json["cells"]).to match(/\A(?:[0-9a-f]{2})*\z/)
      end
    end
  end

  it "gives sizing with the keys new to a filter, nil for a filter made from its shape" do
    filter = Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01)
    filter.add_all(%w[a b a c])
    expect(filter.to_h[:sizing]).to eq({ capacity: 1000, error_rate: 0.01, keys_new: 3 })
    expect(filter.to_h[:stats][:size]).to eq(4)
    expect(Bloomc::BloomFilter.new(1000, 3).to_h[:sizing]).to be_nil
    expect(Bloomc::CuckooFilter.new(capacity: 100, error_rate: 0.01).to_h[:sizing]).to include(capacity: 100, keys_new: nil)
  end

  it "gives a PeriodicFilter member? and === too, over its current period" do
    periodic = Bloomc::PeriodicFilter.new(period: 3600, retention: 3) { Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01) }
    periodic << "user-42"
    picked = ["user-42", "user-7", nil].map do |key|
      case key
      when periodic then :changed
      else :same
      end
    end
    expect([periodic.member?("user-42"), periodic.member?("user-7", last: 3), picked]).to eq([true, false, %i[changed same same]])
  end

  it "shows only the API in Bloomc.constants: the modules the classes are made of are private" do
    internal = %i[Batch ForkHook HashFunction Inspect Mapped Membership Metadata Pages PartStats Persistence SetOps Sizing Stats]
    expect(Bloomc.constants & internal).to be_empty
    expect { Bloomc::Sizing }.to raise_error(NameError, /private constant/)
    expect(Bloomc.constants).to include(:BloomFilter, :Filter, :Error, :Format, :VERSION)
  end
end
