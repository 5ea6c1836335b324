# frozen_string_literal: true

module Bloomc
  # In Ruby, every kind has batches (Batch), #inspect, set operations
  # (SetOps), saving and loading (Persistence, with Metadata) and committed
  # pages (Pages). The modules only some kinds have, each kind includes
  # itself: HashFunction (a choice of hash), Stats (statistics from the
  # cells' fill), Sizing (capacity: and error_rate:) and Mapped (a filter in
  # a memory-mapped file).
  class Filter
    include Batch
    include Inspect
    include SetOps
    include Persistence
    include Pages
    singleton_class.prepend(Pages::New)
    include Membership

    # The filter described as a Hash: its kind, its parameters by the names
    # docs/FORMAT.md gives them, its sizing (capacity, error rate and the
    # keys new to it; nil for a filter made from its shape, and for the
    # scalable and sliding filters, which have no capacity), statistics of
    # its cells and its metadata. The cells themselves are left out.
    #
    #   Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01).to_h
    #   # => {kind: "BloomFilter", parameters: {m: 9595, k: 7, seed: 0, hash: 2, count: 0},
    #   #     sizing: {capacity: 1000, error_rate: 0.01, keys_new: 0}, stats: {size: 0, ...}, metadata: nil}
    #
    # Returns:: (Hash{Symbol => Object})
    def to_h
      require_relative "json_representation"
      parameters = Format.named_parameters(Format.send(:kind_of, self), export_fields + export_extra)
      stats = %i[size fill_ratio estimated_count false_positive_rate].select { |name| respond_to?(name) }
      { kind: filter_kind.name.delete_prefix("Bloomc::"), parameters: symbol_keys(parameters), sizing: sizing_h,
        stats: stats.to_h { |name| [name, public_send(name)] }, metadata: metadata }
    end

    # The filter's JSON representation (docs/HTTP.md), the document
    # <tt>bloomc serve</tt> answers NAME.json with: its kind, parameters,
    # sizing, metadata and cells (as hex), for readers in other languages.
    # JSON.generate(filter) and filter.to_json give it; Bloomc.load reads
    # the binary form (#dump), not this.
    #
    # Returns:: (String)
    def to_json(state = nil)
      require_relative "json_representation"
      Format.json_representation(self).to_json(state)
    end

    private

    # to_h's sizing: capacity, error rate and the keys new to the filter
    # (nil for a kind that does not count them, the cuckoo filter), or nil
    # for a filter made from its shape.
    def sizing_h
      return nil unless is_a?(Sizing) && (capacity || error_rate)

      { capacity: capacity, error_rate: error_rate, keys_new: respond_to?(:distinct, true) ? distinct : nil }
    end

    def symbol_keys(value)
      case value
      when Hash then value.to_h { |key, item| [key.to_sym, symbol_keys(item)] }
      when Array then value.map { |item| symbol_keys(item) }
      else value
      end
    end

    # The kind this filter is: its class, or for a subclass (bloombroom's)
    # the Bloomc class it comes from, which it merges and compares with.
    def filter_kind
      self.class.ancestors.find { |c| c.is_a?(Class) && c.superclass.equal?(Filter) }
    end

    # +count+ for expected_false_positive_rate, checked, and capped where
    # the rate is 1 long before (a larger Integer is no Float).
    def checked_count(count)
      raise TypeError, "count must be a number, not #{count.class}" unless count.is_a?(Numeric) && count.real?
      raise ArgumentError, "count must be >= 0, got #{count.inspect}" unless count >= 0

      [count, 2**64].min
    end
  end
end
