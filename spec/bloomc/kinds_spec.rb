# frozen_string_literal: true

require "spec_helper"

# The kinds are one list: BLOOMC_FILTER_KINDS in ext/bloomc/bloomc.h, each
# kind's file-format number in its C descriptor, and Bloomc::Format::KINDS
# made from them at load. Every other list of kinds is checked against it
# here, so that a kind missing from any of them fails by name.
RSpec.describe "The list of kinds" do
  root = File.expand_path("../..", __dir__)
  kinds = Bloomc::Format::KINDS
  snake = ->(name) { name.to_s.gsub(/(?<=[a-z0-9])(?=[A-Z])/, "_").downcase }

  it "holds every subclass of Bloomc::Filter, each under its own number, and nothing else" do
    classes = Bloomc.constants.map { |c| Bloomc.const_get(c) }.select { |c| c.is_a?(Class) && c < Bloomc::Filter }
    expect(kinds.values.sort).to eq(classes.map { |c| c.name.delete_prefix("Bloomc::").to_sym }.sort)
    expect(kinds.keys).to eq((1..kinds.size).to_a)
  end

  it "is the C list: a binding and an init call for each kind" do
    list = File.read(File.join(root, "ext/bloomc/bloomc.h"))[/#define BLOOMC_FILTER_KINDS\(X\)(.*?)\n\n/m, 1]
    expect(list.scan(/X\((\w+)\)/).flatten.sort).to eq(kinds.values.map { |n| snake.(n) }.sort)
  end

  kinds.each do |number, name|
    describe name.to_s do
      it "has its Ruby file, its signature and its JavaScript reader" do
        expect(File).to exist(File.join(root, "lib/bloomc/#{snake.(name)}.rb"))
        sig = File.read(File.join(root, "sig/bloomc.rbs"))
        expect(sig.match?(/^  class #{name} < Filter$/)).to be(true), "sig/bloomc.rbs has no class #{name} < Filter"
        js = File.read(File.join(root, "js/src/bloomc.js"))
        expect(js[/export const KINDS = Object\.freeze\(\{(.*?)\}\);/m, 1]).to include(%(#{number}: "#{name}"))
        expect(js[/const READERS = \{(.*?)\};/m, 1]).to match(/^  #{number}: #{name},$/)
      end

      it "is in docs/FORMAT.md's table of kinds" do
        table = File.read(File.join(root, "docs/FORMAT.md"))
        expect(table.match?(/^\| #{number} \| #{name}\b[^|]*\|/)).to be(true), "docs/FORMAT.md's table has no row #{number} #{name}"
      end

      # The libFuzzer harness models each kind over the C core, a file of
      # its own each (rake fuzz builds every fuzz/model_*.c in).
      it "is fuzzed" do
        short = { BinaryFuseFilter: "fuse" }.fetch(name) { snake.(name).delete_suffix("_filter").delete_suffix("_bloom") }
        expect(File).to exist(File.join(root, "fuzz/model_#{short}.c"))
      end

      it "is built by the specs' Kinds and called by the bad-input matrix" do
        expect(Kinds::LIST.map(&:klass)).to include(Bloomc.const_get(name))
        expect(BadInputMatrix::RECIPES.keys).to include(Bloomc.const_get(name))
      end
    end
  end
end
