# frozen_string_literal: true

require_relative "bloomc/version"

# Bloom filters for Ruby, with the work done in C.
#
# The classes keep the API of the pure-Ruby gem bloombroom (BitField,
# BitBucketField, BloomFilter, BloomHelper, FNV) so code written for it moves
# over unchanged.
module Bloomc
  # The base of every error the gem raises itself.
  class Error < StandardError; end
  # An operation the filter's kind cannot do (delete on a minimum-increase
  # spectral filter).
  class UnsupportedError < Error; end
  # Input that is not a filter this version of bloomc can read (truncated,
  # corrupted, foreign or from a newer format); the message says why.
  class FormatError < Error; end
  # An add of a new key to a filter that holds all it may: a
  # ScalableBloomFilter at its max_capacity, or one that cannot grow further.
  # The filter is left as it was.
  class CapacityError < Error; end

  # A filter that could not be fetched over HTTP (Bloomc.fetch,
  # Bloomc::Remote): no answer, an answer other than 200, or a body too
  # large. A body that is not a filter raises FormatError instead.
  class FetchError < Error
    # Returns:: (String, nil) the URL asked for
    attr_reader :url
    # Returns:: (Integer, nil) the HTTP status, when the server answered
    attr_reader :status

    # An error with +message+, the +url+ asked for and the HTTP +status+
    # when the server answered.
    def initialize(message = nil, url: nil, status: nil)
      super(message)
      @url = url
      @status = status
    end
  end

  # Loaded on first use, with net/http (lib/bloomc/remote.rb).
  autoload :Remote, File.expand_path("bloomc/remote", __dir__)

  # call-seq: fetch(url, **options) -> filter
  #
  # The filter at +url+, fetched with an HTTP GET and checked as Bloomc.load
  # checks it. See Remote.fetch for the options.
  #
  # Returns:: (filter)
  # Raises:: Bloomc::FetchError when the server does not answer 200 with a body of at most max_bytes
  #     and a head of at most max_header_bytes, within deadline
  # Raises:: Bloomc::FormatError when the body is not a filter (of class +expect+)
  def self.fetch(url, **options)
    Remote.fetch(url, **options)
  end
end

require_relative "bloomc/bloomc"
require_relative "bloomc/bloom_helper"
require_relative "bloomc/inspect"
require_relative "bloomc/stats"
require_relative "bloomc/part_stats"
require_relative "bloomc/set_ops"
require_relative "bloomc/sizing"
require_relative "bloomc/hash_function"
require_relative "bloomc/format"
require_relative "bloomc/mapped"
require_relative "bloomc/batch"
require_relative "bloomc/pages"
require_relative "bloomc/membership"
# What every kind shares in Ruby, on their base class (Bloomc::Filter, made
# in C by ext/bloomc/filter.c): after the modules it includes.
require_relative "bloomc/filter"
# Every filter kind, from the one list of them (Format::KINDS): each has its
# lib/bloomc/<snake_case name>.rb.
Bloomc::Format::KINDS.each_value do |name|
  require_relative "bloomc/#{name.to_s.gsub(/(?<=[a-z0-9])(?=[A-Z])/, '_').downcase}"
end
require_relative "bloomc/fork"
require_relative "bloomc/periodic_filter"

module Bloomc
  # Positions for the Redis filters (lib/bloomc/redis.rb).
  private_constant :RedisLayout
  # The modules the filter classes are made of: their methods are the
  # classes' API, documented there, and none is for users to include.
  private_constant :Batch, :ForkHook, :HashFunction, :Inspect, :Mapped, :Membership, :Metadata, :Pages, :PartStats,
                   :Persistence, :SetOps, :Sizing, :Stats
end
